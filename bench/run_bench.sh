#!/usr/bin/env bash
# run_bench.sh — runs idbench-bench in the quick or the full profile and writes Google
# Benchmark JSON atomically: to a temp file in the output's directory, renamed when complete,
# so a failed or interrupted run never leaves a half-written result.
#
#   bench/run_bench.sh BIN_DIR OUT_JSON [--full] [-- EXTRA_BENCHMARK_FLAGS...]
#   bench/run_bench.sh build/bin reports/latest/bench.json
#
# quick (default): every benchmark once, --benchmark_min_time=0.1 (about a minute on 2 cores).
# --full: 9 repetitions of every benchmark (what the regression gate's Mann-Whitney U test
#         needs), --benchmark_min_time=0.3, every repetition kept in the JSON (about 10 min).
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
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --full) profile=full ;;
    --quick) profile=quick ;;
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
trap 'rm -f "$tmp"' EXIT
"$bench" "${flags[@]}" --benchmark_out="$tmp" --benchmark_out_format=json "${extra[@]}"
# A complete file ends with the closing brace of the benchmarks list.
if ! tail -c 16 "$tmp" | grep -q '}'; then
  echo "run_bench.sh: $tmp is incomplete; keeping the previous $out" >&2
  exit 1
fi
chmod 0644 "$tmp"  # mktemp creates it 0600
mv -f "$tmp" "$out"
trap - EXIT
echo "bench: wrote $out" >&2
if command -v python3 >/dev/null 2>&1; then
  python3 "$here/bench_table.py" "$out" || true
fi
