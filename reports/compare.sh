#!/usr/bin/env bash
# reports/compare.sh BASE_DIR NEW_DIR [--all] [--allow-missing] [--alpha A] ...
#
# The regression gate (./run.sh compare BASE NEW). Prints a Markdown table of what changed
# between two results directories and exits 1 when NEW is worse: a broken promise or a new
# duplicate in chaos.json, or a benchmark slower beyond noise (Mann-Whitney U on >= 9
# repetitions, e.g. `./run.sh bench --full`, and a change past the threshold); 0 otherwise;
# 2 on bad usage. Details and thresholds: reports/compare.py.
#
# Needs Debian's python3-scipy (the U test); libbenchmark-tools adds Google Benchmark's own
# real_time comparison to the table when installed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${IDBENCH_PYTHON:-/usr/bin/python3}
if [ $# -lt 2 ]; then
  echo "usage: $0 BASE_DIR NEW_DIR [--all] [--allow-missing] [--alpha A]" \
       "[--throughput-threshold T] [--latency-threshold L] [--min-repetitions N]" >&2
  exit 2
fi
if [ ! -x "$py" ]; then
  echo "compare.sh: $py not found; install python3 (Debian) or set IDBENCH_PYTHON" >&2
  exit 2
fi
exec "$py" "$here/compare.py" "$@"
