#!/usr/bin/python3
"""clock_cost.py — what one CLOCK_REALTIME read costs a program, read each way idbench can fake
it: through libc's vDSO natively, under libfaketime (as chaos runs it), under the ptrace
injector's vDSO trampoline; and by raw system call natively and trapped by the injector's
seccomp filter.

    inject/clock_cost.py build/bin [--runs 5] [--json FILE]

Each way runs idbench-tracer-probe's `bench N M` (N raw reads, then M through libc, timed on
raw CLOCK_MONOTONIC) `--runs` times, back to back in rotation, and reports the median ns per
read. The faked clocks are armed and one second behind, so every read is a faked one. A
benchmark, not a test: run it on a quiet machine; nothing here asserts a speed.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

MAGIC = 0x6B636F6C63626469  # clock_page.h: "idbclock"
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
# Reads per run: enough for a few hundred ms at each way's cost on this kind of machine.
READS = {"vdso": 2_000_000, "libfaketime": 200_000, "raw": 200_000, "trapped": 5_000}


def write_page(path):
    """A clock page (clock_page.h) one second behind, armed for an hour."""
    now = time.time_ns()
    with open(path, "wb") as f:
        f.write(struct.pack("<QIIIIqqqqq", MAGIC, 1, 0, 0, 0, now + 3600 * 10**9, now,
                            now - 10**9, 1 << 32, 0))
        f.write(b"\0" * (4096 - 56))


def bench(argv, env, raw_reads, libc_reads):
    out = subprocess.run(argv + ["bench", str(raw_reads), str(libc_reads)], env=env,
                         capture_output=True, text=True, timeout=600, check=True).stdout.split()
    return float(out[1]), float(out[3])  # "raw NS libc NS"


def ways(bin_dir, page, faketime_file):
    probe = os.path.join(bin_dir, "idbench-tracer-probe")
    inject = [os.path.join(bin_dir, "idbench-inject"), "--page", page, "--"]
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    faketime = dict(plain, LD_PRELOAD=LIBFAKETIME, FAKETIME_TIMESTAMP_FILE=faketime_file,
                    FAKETIME_NO_CACHE="1", DONT_FAKE_MONOTONIC="1", TZ="UTC")
    # (row, argv, env, raw reads, libc reads, which of the two figures is the row's)
    return [
        ("libc clock_gettime (vDSO), native", [probe], plain, 1, READS["vdso"], 1),
        ("libc clock_gettime under libfaketime", [probe], faketime, 1, READS["libfaketime"], 1),
        ("libc clock_gettime under the ptrace injector (vDSO trampoline)", inject + [probe],
         plain, 1, READS["vdso"], 1),
        ("raw syscall(SYS_clock_gettime), native", [probe], plain, READS["raw"], 1, 0),
        ("raw syscall under the ptrace injector (seccomp trap)", inject + [probe], plain,
         READS["trapped"], 1, 0),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.runs < 1:
        print("clock_cost.py: --runs must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="idbench-clock-cost-") as tmp:
        page = os.path.join(tmp, "page")
        write_page(page)
        faketime_file = os.path.join(tmp, "faketime")
        with open(faketime_file, "w") as f:
            f.write("-1.000000000 x1.000000000\n")
        plan = ways(args.bin_dir, page, faketime_file)
        samples = [[] for _ in plan]
        for run in range(args.runs):
            for i, (row, argv, env, raw, libc, which) in enumerate(plan):
                print(f"clock-cost: run {run + 1}/{args.runs}: {row}", file=sys.stderr)
                samples[i].append(bench(argv, env, raw, libc)[which])
    native = statistics.median(samples[0])
    rows = [{"way": row, "ns_per_read": round(statistics.median(s), 1),
             "min": round(min(s), 1), "max": round(max(s), 1),
             "x_native_vdso": round(statistics.median(s) / native, 2)}
            for (row, *_), s in zip(plan, samples)]
    print(f"| CLOCK_REALTIME read | ns, median of {args.runs} (min–max) | × native vDSO |")
    print("|---|---:|---:|")
    for r in rows:
        print(f"| {r['way']} | {r['ns_per_read']} ({r['min']}–{r['max']}) | {r['x_native_vdso']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": args.runs, "reads": READS, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
