#!/usr/bin/env python3
"""ctest `tracer_model_py`: bench/tracer_model.py raises <mpi-overhead><peer-setup time> by
exactly DELTA and changes nothing else; the copy loads in `clustersim validate`, which shows
the new time; bad input (no <peer-setup>, a DELTA without a unit) is one line and exit 2.

    tracer_model_test.py CLUSTERSIM SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

# The shipped calibrated-1124b.xml (which has an <mpi-overhead> without a set-up) with one.
SETUP = '<peer-setup after="16" time="7.5us"/>'


def model_text(src, setup):
    with open(os.path.join(src, "topologies", "examples", "calibrated-1124b.xml")) as f:
        text = f.read()
    return text.replace("  </mpi-overhead>", f"    {setup}\n  </mpi-overhead>", 1)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def main():
    cs, src = sys.argv[1], sys.argv[2]
    script = os.path.join(src, "bench", "tracer_model.py")
    failures = []
    with tempfile.TemporaryDirectory() as d:
        model, out = os.path.join(d, "m.xml"), os.path.join(d, "t.xml")
        with open(model, "w") as f:
            f.write(model_text(src, SETUP))
        r = run(sys.executable, script, model, out, "3.25us")
        if r.returncode != 0:
            failures.append(f"tracer_model.py failed: {r.stderr}")
        else:
            before, after = ET.parse(model).getroot(), ET.parse(out).getroot()
            setup = after.find("mpi-overhead/peer-setup")
            if setup.get("time") != "10750.000ns" or setup.get("after") != "16":
                failures.append(f"peer-setup {setup.attrib}, expected after 16, time 10750.000ns")
            setup.set("time", "7.5us")
            if ET.tostring(before) != ET.tostring(after):
                failures.append("something besides <peer-setup time> changed")
            v = run(cs, "validate", out)
            if "peer setup 10.75 us before a rank's message 16" not in v.stdout:
                failures.append(f"clustersim validate: {v.stdout}{v.stderr}")
        for args, want in (([model, out, "3.25"], "DELTA: '3.25': expected a duration with a unit"),
                           ([os.path.join(d, "none.xml"), out, "1us"], "none.xml"),):
            if args[0].endswith("none.xml"):
                with open(args[0], "w") as f:
                    f.write(model_text(src, ""))
            r = run(sys.executable, script, *args)
            if r.returncode != 2 or want not in r.stderr or r.stderr.count("\n") != 1:
                failures.append(f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
