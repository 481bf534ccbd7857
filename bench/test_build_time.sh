#!/usr/bin/env bash
# The test programs' build time at two revisions of tests/, alternated in one build folder:
#   bench/test_build_time.sh BUILD OLD_REV NEW_REV [old|new ...]   (default order: old new new old)
# Each round checks tests/ out at that revision (so tests/ must have no uncommitted change),
# reconfigures, builds everything the test programs need (libraries, tools, the precompiled
# header: not timed), deletes the test programs and their objects, then times building them
# with `ninja -j2` (wall, user and system CPU from /usr/bin/time). Leaves tests/ at NEW_REV.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD OLD_REV NEW_REV [old|new ...]" >&2
  exit 2
fi
build=$1 old=$2 new=$3
shift 3
order=("$@")
[ ${#order[@]} -gt 0 ] || order=(old new new old)
cd "$(dirname "$0")/.."
git rev-parse -q --verify "$old^{commit}" >/dev/null || { echo "$0: no revision $old" >&2; exit 2; }
git rev-parse -q --verify "$new^{commit}" >/dev/null || { echo "$0: no revision $new" >&2; exit 2; }
[ -f "$build/build.ninja" ] || { echo "$0: $build is not a Ninja build folder" >&2; exit 2; }
if [ -n "$(git status --porcelain -- tests)" ]; then
  echo "$0: tests/ has uncommitted changes (each round checks tests/ out)" >&2
  exit 2
fi
trap 'git checkout -q "$new" -- tests' EXIT
for r in "${order[@]}"; do
  case $r in
    old) git checkout -q "$old" -- tests ;;
    new) git checkout -q "$new" -- tests ;;
    *) echo "$0: a round is old or new, not '$r'" >&2; exit 2 ;;
  esac
  cmake "$build" >/dev/null
  deps=$(ninja -C "$build" -t targets all | grep -E 'LINKER' | awk -F: '{print $1}' |
         grep -vE '(^|/)tests/tests?_' || true)
  pch=$(ninja -C "$build" -t targets all | awk -F: '/clustersim_test_pch.dir\/cmake_pch.hxx.(gch|pch):/ {print $1}')
  # shellcheck disable=SC2086
  ninja -C "$build" -j2 $deps $pch >/dev/null
  find "$build/tests/CMakeFiles" -regextype posix-extended -regex '.*/tests?_[a-z0-9_]+\.dir/.*\.o' -delete
  find "$build/tests" -maxdepth 1 -type f -regextype posix-extended -regex '.*/tests?_[a-z0-9_]+' -delete
  /usr/bin/time -f "$r ($(git rev-parse --short "${!r}")): wall %e s, user %U s, sys %S s" \
    ninja -C "$build" -j2 >/dev/null 2>"$build/test_build_time.err" || { cat "$build/test_build_time.err"; exit 1; }
  tail -1 "$build/test_build_time.err"
  echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
