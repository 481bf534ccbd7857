#!/usr/bin/env python3
"""Write the ablation variants of a calibrated model (issue 23): the model with each of the
MPI-library mechanisms switched off in turn, as `OUTDIR/NAME.xml`, one line per variant on
stdout ("NAME<TAB>what was switched off"). bench/validate.sh ablation replays the suite on
each. A mechanism the model does not carry gives no variant.

    python3 bench/ablate.py MODEL.xml OUTDIR
"""
import copy
import os
import sys
import xml.etree.ElementTree as ET


def variants(root):
    """(name, description, edit) for each mechanism present in `root`."""
    comm = root.find("comm-model")
    coll = root.find("collectives")
    ovh = root.find("mpi-overhead")
    fs = root.find("file-system")
    out = []

    def p2p(direction):
        return [] if comm is None else [
            e for e in comm.findall("point-to-point") if e.get("direction") == direction]

    for direction, name, what in (("both", "no-two-way", "the two-way curve (<point-to-point direction=\"both\">)"),
                                  ("concurrent", "no-concurrent", "the concurrency curve (<point-to-point direction=\"concurrent\">)")):
        if p2p(direction):
            out.append((name, what, lambda r, d=direction: [
                r.find("comm-model").remove(e) for e in list(r.find("comm-model").findall("point-to-point"))
                if e.get("direction") == d]))
    def power_of_4(size):
        units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
        for u in sorted(units, key=len, reverse=True):
            if size.endswith(u) and size[: -len(u)].isdigit():
                n = int(size[: -len(u)]) * units[u]
                return n > 0 and n & (n - 1) == 0 and (n.bit_length() - 1) % 2 == 0
        return True  # another spelling: keep the point

    if comm is not None and any(not power_of_4(p.get("size", "")) for e in comm.findall("point-to-point")
                                for p in e.findall("point")):
        def coarse(r):
            for e in r.find("comm-model").findall("point-to-point"):
                for p in list(e.findall("point")):
                    if not power_of_4(p.get("size", "")):
                        e.remove(p)
        out.append(("no-dense-grid", "the dense size grid (curve points at powers of 4 only)", coarse))
    if ovh is not None:
        out.append(("no-mpi-overhead", "<mpi-overhead> (o_s, o_r, post, gap, peer setup, fresh and cold sends, connection set-up)",
                    lambda r: r.remove(r.find("mpi-overhead"))))
        # <cold-send> adds to <fresh-send>: switching the fresh sends off takes it too.
        for children, name in ((("gap",), "no-gap"), (("peer-setup",), "no-peer-setup"),
                               (("fresh-send", "cold-send"), "no-fresh-send"),
                               (("cold-send",), "no-cold-send"), (("connect",), "no-connect")):
            if ovh.find(children[0]) is not None:
                def drop(r, cs=children):
                    o = r.find("mpi-overhead")
                    for c in cs:
                        if o.find(c) is not None:
                            o.remove(o.find(c))
                out.append((name, f"<mpi-overhead><{children[0]}>", drop))
    if coll is not None:
        if coll.find("collective-curve") is not None:
            out.append(("no-collective-curves", "the measured collective curves (curves=\"off\")",
                        lambda r: r.find("collectives").set("curves", "off")))
        if coll.get("buffer-copies") == "yes":
            out.append(("no-buffer-copies", "buffer-copies=\"yes\"",
                        lambda r: r.find("collectives").attrib.pop("buffer-copies")))
        if coll.find("copy-rate") is not None or coll.find("reduce-rate") is not None:
            def rates(r):
                c = r.find("collectives")
                for tag in ("copy-rate", "reduce-rate"):
                    for e in c.findall(tag):
                        c.remove(e)
            out.append(("no-rate-curves", "the <copy-rate>/<reduce-rate> curves (64 MiB rates only)", rates))
        if coll.get("first-topology") is not None:
            out.append(("no-first-topology", "<collectives first-topology>",
                        lambda r: r.find("collectives").attrib.pop("first-topology")))
        if coll.get("barrier") is not None:
            out.append(("no-barrier-cost", "<collectives barrier>",
                        lambda r: r.find("collectives").attrib.pop("barrier")))
    if fs is not None and fs.get("first-open") is not None:
        out.append(("no-first-open", "<file-system first-open>",
                    lambda r: r.find("file-system").attrib.pop("first-open")))
    if fs is not None and fs.get("sync-apart") is not None:
        out.append(("no-sync-apart", "<file-system sync-apart>",
                    lambda r: r.find("file-system").attrib.pop("sync-apart")))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    model, outdir = sys.argv[1], sys.argv[2]
    try:
        tree = ET.parse(model)
    except (OSError, ET.ParseError) as e:
        print(f"{model}: {e}", file=sys.stderr)
        return 2
    os.makedirs(outdir, exist_ok=True)
    root = tree.getroot()
    for name, what, edit in variants(root):
        r = copy.deepcopy(root)
        edit(r)
        ET.ElementTree(r).write(os.path.join(outdir, name + ".xml"), encoding="UTF-8", xml_declaration=True)
        print(f"{name}\t{what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
