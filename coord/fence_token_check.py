#!/usr/bin/env python3
"""fence_token_check.py — the in-id fence's token as the layout decodes it (worker_ids_test.sh).

    fence_token_check.py IDBENCH RUN.json KEEP_DIR

For every holding of the run's first run (a claim line in node-<k>.events), the first and the
last ID the node issued under it (node-<k>.inc-0.thread-0.rec, one 40-byte history record
per ID: hi, lo = the ID, true ns, monotonic ns, call µs, kind, detail) are decoded by `idbench decode --layout LAYOUT
--json`, LAYOUT being the run's `layout`. Each must carry the claim counter mod 2^gen_bits in
`gen`. Also: some worker id was held twice (the zombie and its next owner) under two gens.
Exit 0 when all hold, 1 naming the first that does not.
"""
import json
import struct
import subprocess
import sys

RECORD = "=QQqqIHH"  # the history record, host order


def holdings(keep, node):
    claims = []
    with open(f"{keep}/node-{node}.events") as f:
        for line in f:
            w = line.split()
            if w and w[0] == "claim":
                claims.append((int(w[1]), int(w[2]), int(w[3])))  # ns, worker, counter
    with open(f"{keep}/node-{node}.inc-0.thread-0.rec", "rb") as f:
        data = f.read()
    size = struct.calcsize(RECORD)
    recs = [struct.unpack_from(RECORD, data, i) for i in range(0, len(data) - size + 1, size)]
    out = []
    for i, (at, worker, counter) in enumerate(claims):
        until = claims[i + 1][0] if i + 1 < len(claims) else 1 << 62
        ids = [lo for _hi, lo, _true, mono, *_rest in recs if at <= mono < until]
        if ids:
            out += [(node, worker, counter, ids[0]), (node, worker, counter, ids[-1])]
    return out


def main():
    idbench, run_json, keep = sys.argv[1:4]
    run = json.load(open(run_json))["runs"][0]
    bits = run["gen_bits"]
    checked = []
    for node in range(len(run["nodes"])):
        checked += holdings(keep, node)
    if len(checked) < 8:
        print(f"FAIL: fence token: only {len(checked) // 2} holdings issued IDs")
        return 1
    out = subprocess.run([idbench, "decode", "--layout", run["layout"], "--json"] +
                         [str(c[3]) for c in checked], capture_output=True, text=True, check=True)
    decoded = [json.loads(line) for line in out.stdout.splitlines()]
    gens_of_worker = {}
    for (node, worker, counter, id_), d in zip(checked, decoded):
        want = counter % (1 << bits)
        if d.get("gen") != want:
            print(f"FAIL: fence token: node {node}'s ID {id_} under worker {worker}, claim "
                  f"{counter}, decodes by layout {run['layout']} to gen {d.get('gen')}, want {want}")
            return 1
        gens_of_worker.setdefault(worker, set()).add(d["gen"])
    if not any(len(g) > 1 for g in gens_of_worker.values()):
        print("FAIL: fence token: no worker id was held under two generations")
        return 1
    print(f"ok: fence token in the layout's gen field ({len(checked)} IDs decoded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
