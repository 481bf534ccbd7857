#!/usr/bin/env python3
"""Validates `clustersim run --json` against docs/schema/run.schema.json, and `compare --json`
against docs/schema/compare.schema.json (python3-jsonschema).

Runs the command on runs that exercise every part of the object (an app summary, I/O
servers, OS jitter, per-rank results, several apps, the packet, fluid and analytic network
models, a trace), validates each, and checks that the validator rejects a document that
breaks the schema (a string with a unit where a number belongs), so this test can fail.

Usage: check_schema.py CLUSTERSIM_BINARY REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def main():
    binary, root = sys.argv[1], sys.argv[2]
    schema = json.load(open(os.path.join(root, "docs", "schema", "run.schema.json")))
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    ex = os.path.join(root, "topologies", "examples")
    shared = os.path.join(root, "..", "shared", "external")
    runs = [
        [f"{ex}/figure1-westmere-10.xml", "--app", "pingpong:size=1MiB,iterations=10"],
        [f"{ex}/figure5-io-8.xml", "--app", "io:op=write,size=16MiB,transfer=1MiB", "--ranks", "8",
         "--per-rank"],
        [f"{ex}/jitter-8.xml", "--app", "loop:work=1ms,iterations=20", "--ranks", "8"],
        [f"{ex}/star-16.xml", "--app", "bcast:size=1MiB", "--app", "stream:size=1MiB",
         "--ranks", "4", "--ranks", "2", "--network", "fluid"],
        [f"{ex}/star-16.xml", "--app", "allreduce:size=1MiB", "--ranks", "8", "--network",
         "bus_only:buses=2"],
        [f"{ex}/psins-16.xml", "--app", f"trace:{shared}/simgrid-ti-traces/actions01.index.txt"],
    ]
    failed = 0
    docs = []
    for args in runs:
        p = subprocess.run([binary, "run", *args, "--json"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL clustersim run {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
            failed += 1
            continue
        doc = json.loads(p.stdout)
        docs.append(doc)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            print(f"FAIL {' '.join(args)}: at {'/'.join(map(str, e.path)) or '(top)'}: {e.message}")
        failed += 1 if errors else 0
        if not errors:
            print(f"ok   clustersim run {' '.join(args)} --json")
    # The validator must catch what the issue saw: strings with units as values.
    if docs:
        bad = dict(docs[0])
        bad["app_summary"] = {"one-way time": "10.12 ms"}
        if validator.is_valid(bad):
            print("FAIL the schema accepts an app_summary of strings with units")
            failed += 1
        else:
            print("ok   a string with a unit in app_summary is rejected")
    # `clustersim compare --json` (docs/schema/compare.schema.json): a run of a trace and its
    # comparison with the recording, with --by-size.
    cschema = json.load(open(os.path.join(root, "docs", "schema", "compare.schema.json")))
    jsonschema.Draft7Validator.check_schema(cschema)
    cvalidator = jsonschema.Draft7Validator(cschema)
    trace = f"{shared}/otf2-scorep-sst-macro/traces.otf2"
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([binary, "run", f"{ex}/figure1-westmere-10.xml", "--app",
                            f"trace:{trace}", "--out", out], capture_output=True, text=True)
        c = subprocess.run([binary, "compare", trace, out, "--json", "--by-size"],
                           capture_output=True, text=True)
        if p.returncode != 0 or c.returncode != 0:
            print(f"FAIL clustersim compare --json: {p.stderr.strip()} {c.stderr.strip()}")
            failed += 1
        else:
            doc = json.loads(c.stdout)
            errors = list(cvalidator.iter_errors(doc))
            for e in errors:
                print(f"FAIL compare --json: at {'/'.join(map(str, e.path)) or '(top)'}: {e.message}")
            parts = doc["split"]
            for side in ("recorded_s", "simulated_s"):
                if abs(parts[0][side] + parts[1][side] + parts[2][side] - parts[3][side]) > 1e-9:
                    print(f"FAIL compare --json: the split's {side} does not add up")
                    errors.append(side)
            failed += 1 if errors else 0
            if not errors:
                print("ok   clustersim compare --json --by-size")
    print(f"{len(runs) + 2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
