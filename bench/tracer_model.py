#!/usr/bin/env python3
"""Write MODEL with the tracer's extra peer set-up added (issue 23): the comparison of a
replay with a recording made under libclustersim-trace.so. Under the tracer, Open MPI's lazy
fast-box set-up costs more than without it (docs/validation.md, "Small messages under
traffic"); `bench/validate.sh tracer-setup` measures by how much (DELTA, per direction: the
median of `clustersim-calibrate --peer-setup-only` with the tracer less the median without,
halved). The model itself describes the machine without the tracer; this copy, with
<mpi-overhead><peer-setup time> raised by DELTA, is what a traced recording is compared with.

    python3 bench/tracer_model.py MODEL.xml OUT.xml DELTA      (DELTA e.g. 5.2us, 5200ns)
"""
import re
import sys
import xml.etree.ElementTree as ET

UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def nanoseconds(text, what):
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ps|ns|us|µs|ms|s)\s*", text or "")
    if not m:
        raise ValueError(f"{what}: '{text}': expected a duration with a unit (e.g. 5.2us)")
    return float(m.group(1)) * UNITS[m.group(2)]


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: tracer_model.py MODEL.xml OUT.xml DELTA\n")
        return 2
    model, out, delta_text = argv[1:]
    try:
        delta = nanoseconds(delta_text, "DELTA")
        tree = ET.parse(model)
    except (ValueError, ET.ParseError, OSError) as e:
        sys.stderr.write(f"tracer_model.py: {e}\n")
        return 2
    setup = tree.getroot().find("mpi-overhead/peer-setup")
    if setup is None:
        sys.stderr.write(f"tracer_model.py: {model}: no <mpi-overhead><peer-setup>: "
                         "nothing to add the tracer's set-up to\n")
        return 2
    try:
        time = nanoseconds(setup.get("time"), f"{model}: <peer-setup time>")
    except ValueError as e:
        sys.stderr.write(f"tracer_model.py: {e}\n")
        return 2
    setup.set("time", f"{time + delta:.3f}ns")
    tree.write(out, encoding="unicode", xml_declaration=False)
    print(f"{out}: <peer-setup time> {time:.3f} ns + the tracer's {delta:.3f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
