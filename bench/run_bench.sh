#!/usr/bin/env bash
# run_bench.sh — runs idbench-bench in the quick or the full profile and writes Google
# Benchmark JSON atomically: to a temp file in the output's directory, renamed when complete,
# so a failed or interrupted run never leaves a half-written result.
#
#   bench/run_bench.sh BIN_DIR OUT_JSON [--full] [--no-real] [-- EXTRA_BENCHMARK_FLAGS...]
#   bench/run_bench.sh build/bin reports/latest/bench.json
#
# quick (default): every benchmark once, --benchmark_min_time=0.1 (about a minute on 2 cores).
# --full: 9 repetitions of every benchmark (what the regression gate's Mann-Whitney U test
#         needs), --benchmark_min_time=0.3, every repetition kept in the JSON (about 10 min).
#
# Then the real systems: `idbench real --system quick --requests 1 --seconds 1 --warmup 0.2`
# (quick: the systems marked for the quick pass, at each of their durability settings, from 1
# and 8 clients asking 1 ID per request, the figures the decision table shows; about 50 s, then
# the locality of each system's real IDs, about 45 s) or `--system all` (--full: every system,
# 1 and 1,000 IDs per request, 10 s per cell). Its JSON goes into bench.json under the
# key "real_systems", so the one file carries the in-process lower bounds and the real figures
# they stand for, from the same run and machine. --no-real
# skips it. A real-system run that fails still embeds what it measured ("complete": false or
# cells with an "error"), and the script then exits 1 after writing bench.json.
#
# Then instructions per ID (bench/run_icount.py: valgrind, a few seconds) into icount.json
# beside OUT_JSON, which `./run.sh compare BASE_DIR NEW_DIR` gates at 1 %.
#
# Measure on a quiet machine: the script prints the load average first and warns when other
# work is running; the JSON context records it too (load_avg, and load_avg_1m in the
# run-context block idbench-bench writes with the commit and its dirty marker).
set -euo pipefail

usage() {
  echo "usage: $0 BIN_DIR OUT_JSON [--full] [-- EXTRA_BENCHMARK_FLAGS...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
bin_dir=$1
out=$2
shift 2
profile=quick
real=yes
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --full) profile=full ;;
    --quick) profile=quick ;;
    --no-real) real=no ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run_bench.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

bench="$bin_dir/idbench-bench"
if [ ! -x "$bench" ]; then
  echo "run_bench.sh: $bench not found; build the idbench-bench target first" >&2
  exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# embed_real BENCH_JSON REAL_JSON: REAL_JSON's object becomes BENCH_JSON's "real_systems" key
# (rewritten in place; BENCH_JSON is still the temp file). Nothing is embedded when REAL_JSON
# holds no JSON object (idbench real refused before it wrote one).
embed_real() {
  [ -x /usr/bin/python3 ] || { echo "run_bench.sh: /usr/bin/python3 is missing: the real" \
    "systems are not embedded in bench.json" >&2; return 1; }
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    bench = json.load(f)
try:
    with open(sys.argv[2], encoding="utf-8") as f:
        real = json.load(f)
except (OSError, ValueError):
    real = None
if not isinstance(real, dict):
    print("run_bench.sh: idbench real wrote no JSON: bench.json carries no real_systems",
          file=sys.stderr)
    sys.exit(1)
bench["real_systems"] = real
with open(sys.argv[1], "w", encoding="utf-8") as f:
    json.dump(bench, f, indent=2)
    f.write("\n")
PY
}

case $profile in
  quick) flags=(--benchmark_min_time=0.1) ;;
  full) flags=(--benchmark_min_time=0.3 --benchmark_repetitions=9
               --benchmark_display_aggregates_only=true) ;;
esac

cores=$(nproc 2>/dev/null || echo 1)
read -r load1 _ < /proc/loadavg || load1=0
echo "bench: $profile profile, load average $load1 on $cores cores" >&2
if awk -v l="$load1" -v c="$cores" 'BEGIN { exit !(l > 0.5 * c) }'; then
  echo "bench: WARNING: the machine is busy (load $load1); throughput and tails will suffer" >&2
fi

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.tmp.XXXXXX")
real_tmp=$(mktemp "$out.real.XXXXXX")
trap 'rm -f "$tmp" "$real_tmp"' EXIT
"$bench" "${flags[@]}" --benchmark_out="$tmp" --benchmark_out_format=json "${extra[@]}"
# A complete file ends with the closing brace of the benchmarks list.
if ! tail -c 16 "$tmp" | grep -q '}'; then
  echo "run_bench.sh: $tmp is incomplete; keeping the previous $out" >&2
  exit 1
fi

# Instructions per ID of every variant's 1-thread next() (bench/run_icount.py, valgrind): the
# figure the regression gate can hold tight on a noisy machine; icount.json beside OUT_JSON.
# Without valgrind or idbench-icount it is skipped with a note, never a failure of the bench.
if [ -x "$bin_dir/idbench-icount" ] && [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 "$here/run_icount.py" "$bin_dir" "$(dirname "$out")/icount.json" ||
    echo "bench: instructions per ID not counted (see above); icount.json not written" >&2
fi

real_status=0
if [ "$real" = yes ]; then
  case $profile in
    quick) real_flags=(--system quick --requests 1 --seconds 1 --warmup 0.2) ;;
    full) real_flags=(--system all) ;;
  esac
  started=$(date +%s)
  "$bin_dir/idbench" real "${real_flags[@]}" --out "$real_tmp" || real_status=$?
  echo "bench: real systems ($profile) took $(($(date +%s) - started)) s, exit $real_status" >&2
  embed_real "$tmp" "$real_tmp" || real_status=1
fi

chmod 0644 "$tmp"  # mktemp creates it 0600
mv -f "$tmp" "$out"
rm -f "$real_tmp"
trap - EXIT
echo "bench: wrote $out" >&2
if command -v python3 >/dev/null 2>&1; then
  python3 "$here/bench_table.py" "$out" || true
fi
if [ "$real_status" -ne 0 ]; then
  echo "run_bench.sh: the real-system bench failed (exit $real_status); bench.json keeps what" \
    "it measured" >&2
  [ "$real_status" -eq 130 ] && exit 130
  exit 1
fi
