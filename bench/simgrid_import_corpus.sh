#!/usr/bin/env bash
# Imports every SimGrid platform of a SimGrid source tree with `clustersim import simgrid`
# and validates the result: one line per file (imported: nodes and one-way edges; or the
# refusal, file:line and why), then the counts. SimGrid is not needed, only its sources:
#
#   git clone --depth 1 https://framagit.org/simgrid/simgrid.git /tmp/simgrid
#   bash bench/simgrid_import_corpus.sh /tmp/simgrid [build/tools/clustersim]
#
# Reads examples/platforms/*.xml and teshsuite/platforms/*.xml (73 files in the 2025 tree,
# commit 12a63c78; a file that includes others is imported as it is: <include> is not
# followed). Exit 0 unless a file makes the importer fail in an unexpected way (a crash, or
# XML the model reader rejects).
set -u
src=${1:?usage: simgrid_import_corpus.sh SIMGRID_SOURCE_DIR [CLUSTERSIM]}
bin=${2:-build/tools/clustersim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
imported=0 refused=0 broken=0
for f in "$src"/examples/platforms/*.xml "$src"/teshsuite/platforms/*.xml; do
    [ -e "$f" ] || continue
    name=${f#"$src"/}
    if "$bin" import simgrid "$f" > "$out/m.xml" 2> "$out/err"; then
        if summary=$("$bin" validate "$out/m.xml" 2>&1); then
            nodes=$(printf '%s\n' "$summary" | awk '$1 == "nodes" {print $2; exit}')
            edges=$(printf '%s\n' "$summary" | awk '$1 == "links" {print $2; exit}')
            printf '%-60s imported: %s nodes, %s one-way edges, %s unmapped lines\n' \
                "$name" "$nodes" "${edges:-?}" "$(grep -c 'not mapped' "$out/err")"
            imported=$((imported + 1))
        else
            printf '%-60s BROKEN: the model does not load: %s\n' "$name" "$(tail -1 <<< "$summary")"
            broken=$((broken + 1))
        fi
    else
        rc=$?
        if [ "$rc" -eq 2 ]; then
            printf '%-60s refused: %s\n' "$name" "$(tail -1 "$out/err" | sed 's/^clustersim: error: //')"
            refused=$((refused + 1))
        else
            printf '%-60s BROKEN: exit %s: %s\n' "$name" "$rc" "$(tail -1 "$out/err")"
            broken=$((broken + 1))
        fi
    fi
done
echo "imported $imported, refused $refused, broken $broken"
[ "$broken" -eq 0 ]
