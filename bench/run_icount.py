#!/usr/bin/python3
"""run_icount.py — instructions per ID of every variant's 1-thread next(), into icount.json.

    bench/run_icount.py BIN_DIR OUT_JSON [--calls N] [--method auto|valgrind|perf]

Runs BIN_DIR/idbench-icount (bench/icount.cpp), which builds the minimal designs (the floors:
a CAS, a mutex, a per-thread Snowflake and a method-1 UUIDv7, hard-coded to one layout and one
policy) and each variant of the registry on a deterministic stepping clock and counts N calls of
next() (after a warm-up):
  * perf: a hardware instruction counter (perf_event_open, user space only) where the kernel
    offers one;
  * valgrind: Debian's valgrind, `--tool=callgrind --collect-atstart=no`; the program toggles
    collection around the N calls and dumps one file per variant, whose `totals:` line is the
    count. valgrind counts guest instructions exactly, so a rerun of the same binary gives the
    same number.
auto (the default) uses valgrind when it is installed, since it is exact, and perf otherwise;
when neither works it says why on one line and exits 4.

icount.json (written whole: temp file + rename):
    {"context": {run context of idbench-icount, "method", "tool", "calls", "clock", "plant"},
     "floors": [{"name", "calls", "instructions", "instructions_per_id"}],
     "variants": [{"name", "calls", "instructions", "instructions_per_id", "floor" (the floor's
                   name, or null when no minimal design is comparable), "floor_instructions_per_id",
                   "ratio" (instructions_per_id ÷ the floor's)}]}
reports/compare.py gates on instructions_per_id (tight threshold: the count does not move
between runs of the same code) and shows each variant's floor and ratio beside it.

Exit: 0 written; 2 bad usage; 3 a generator refused; 4 no counter (no valgrind, no perf).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXIT_BAD_INPUT, EXIT_MISSING_TOOL = 2, 4


def fail(status: int, why: str):
    print(f"run_icount: {why}", file=sys.stderr)
    sys.exit(status)


def parse_dumps(directory: str) -> dict[str, int]:
    """variant → instructions, from callgrind's dump files (trigger "Client Request: NAME")."""
    counts: dict[str, int] = {}
    for name in sorted(os.listdir(directory)):
        trigger, total = None, None
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"desc: Trigger: Client Request: (.+)$", line.rstrip("\n"))
                if m:
                    trigger = m.group(1).strip()
                m = re.match(r"(?:totals|summary):\s+(\d+)", line)
                if m:
                    total = int(m.group(1))
        if trigger is not None and total is not None:
            counts[trigger] = total
    return counts


def run_program(argv: list[str]) -> dict:
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        if p.returncode == EXIT_MISSING_TOOL:
            raise LookupError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "")
        fail(p.returncode if p.returncode in (2, 3) else 1,
             f"{argv[0] if 'valgrind' not in argv[0] else 'valgrind'} exited {p.returncode}")
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        fail(1, "idbench-icount printed no JSON")


def with_valgrind(program: str, calls: int) -> tuple[dict, str]:
    with tempfile.TemporaryDirectory(prefix="idbench-icount.") as tmp:
        doc = run_program(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                           "--dump-instr=no", "--compress-strings=no",
                           f"--callgrind-out-file={tmp}/callgrind.out", program,
                           "--calls", str(calls), "--method", "callgrind"])
        counts = parse_dumps(tmp)
    for v in doc.get("floors", []) + doc.get("variants", []):
        if v["name"] not in counts:
            fail(1, f"callgrind wrote no count for {v['name']}")
        v["instructions"] = counts[v["name"]]
    version = subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE,
                             text=True).stdout.strip()
    return doc, f"{version} callgrind (Ir)"


def measure(program: str, calls: int, method: str) -> tuple[dict, str]:
    has_valgrind = shutil.which("valgrind") is not None
    if method == "valgrind" or (method == "auto" and has_valgrind):
        if not has_valgrind:
            fail(EXIT_MISSING_TOOL, "valgrind is not installed (apt-get install valgrind)")
        return with_valgrind(program, calls)
    try:
        return run_program([program, "--calls", str(calls), "--method", "perf"]), \
            "perf_event_open (instructions:u)"
    except LookupError as e:
        fail(EXIT_MISSING_TOOL, f"no instruction counter: {e}; and valgrind is not installed "
                                "(apt-get install valgrind)")


def rows_with_floors(doc: dict) -> tuple[list[dict], list[dict]]:
    """The floors' rows and the variants' rows of icount.json, each variant with its floor's
    instructions per ID and its ratio to it (both null when it has no floor)."""
    calls = doc["calls"]

    def row(v: dict) -> dict:
        return {"name": v["name"], "calls": calls, "instructions": v["instructions"],
                "instructions_per_id": v["instructions"] / calls}
    floors = [row(f) for f in doc.get("floors", [])]
    per_floor = {f["name"]: f["instructions_per_id"] for f in floors}
    rows = []
    for v in doc.get("variants", []):
        r = row(v)
        floor = per_floor.get(v.get("floor"))
        r.update({"floor": v.get("floor") if floor else None, "floor_instructions_per_id": floor,
                  "ratio": r["instructions_per_id"] / floor if floor else None})
        rows.append(r)
    return floors, rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="instructions per ID of each variant's next()")
    ap.add_argument("bin_dir")
    ap.add_argument("out_json")
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--method", choices=("auto", "valgrind", "perf"), default="auto")
    args = ap.parse_args(argv)
    program = os.path.join(args.bin_dir, "idbench-icount")
    if not os.access(program, os.X_OK):
        fail(EXIT_BAD_INPUT, f"{program} not found; build the idbench-icount target first")
    if args.calls < 1:
        fail(EXIT_BAD_INPUT, "--calls must be at least 1")
    doc, tool = measure(program, args.calls, args.method)
    context = dict(doc.get("context") or {})
    context.update({"method": doc.get("method"), "tool": tool, "calls": doc.get("calls"),
                    "clock": doc.get("clock"), "layout": doc.get("layout"),
                    "plant": doc.get("plant")})
    floors, rows = rows_with_floors(doc)
    out = {"context": context, "floors": floors, "variants": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.out_json)), exist_ok=True)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reports"))
    import render  # its write_atomically: temp file, fsync, rename
    render.write_atomically(args.out_json, json.dumps(out, indent=2) + "\n")
    for r in floors + rows:
        ratio = f" = {r['ratio']:.2f} x {r['floor']}" if r.get("ratio") else ""
        print(f"icount: {r['name']:<18} {r['instructions_per_id']:10.1f} instructions per ID"
              f"{ratio} ({tool})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
