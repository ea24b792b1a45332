#!/usr/bin/env bash
# reports/gate_campaign.sh — measures the regression gate's operating characteristics on this
# machine: how often an unchanged revision fails (A/A), and how often a planted
# slowdown is caught. Writes one JSON line per comparison to OUT_DIR/campaign.jsonl and the
# table to OUT_DIR/campaign.md (reports/gate_campaign_table.py).
#
#   reports/gate_campaign.sh OUT_DIR [--aa N] [--planted N] [--icount N] [--rounds R]
#                            [--time-loops L] [--icount-loops L] [--beside]
#
# Builds (release, in this tree): build/ (the revision as it is), build-gate-plant-time/ and
# build-gate-plant-icount/ (the same with IDBENCH_PLANT_LOOPS=L of fixed work in every next()
# of one variant, bench/plant.hpp). The planted variant is chosen by its description
# (`idbench list --json`), never by name: the first variant that reads a clock and has no
# layout, so its 1-thread rate is not held at a layout's format cap (where a slower next()
# would not show in IDs/s).
#   --aa N       (20) A/A: the full gate (icount + interleaved bench) of build/ against itself
#   --planted N  (20) the full gate of build/ against the planted-time build (L=--time-loops,
#                     default 6: about 10 % of that variant's 1-thread cost here)
#   --icount N   (20) the instruction-count gate against the planted-icount build
#                     (L=--icount-loops, default 5: about 5 % more instructions per ID)
#   --beside     run a build beside the comparisons (a -j1 compile loop, ccache off), for a
#                machine where no other build is running; the campaign records, for every
#                comparison, the load average and how many compilers (cc1plus) were running.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
py=${IDBENCH_PYTHON:-/usr/bin/python3}
die() { printf 'gate_campaign: %s\n' "$*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: gate_campaign.sh OUT_DIR [--aa N] [--planted N] [--icount N] [--rounds R] [--time-loops L] [--icount-loops L] [--beside]"
out=$1
shift
aa=20 planted=20 icount=20 rounds=10 time_loops=6 icount_loops=5 beside=no
while [ $# -gt 0 ]; do
  case $1 in
    --aa) aa=${2:?}; shift ;;
    --planted) planted=${2:?}; shift ;;
    --icount) icount=${2:?}; shift ;;
    --rounds) rounds=${2:?}; shift ;;
    --time-loops) time_loops=${2:?}; shift ;;
    --icount-loops) icount_loops=${2:?}; shift ;;
    --beside) beside=yes ;;
    *) die "unknown argument '$1'" ;;
  esac
  shift
done
mkdir -p "$out"
log=$out/campaign.jsonl
: >"$log"
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$root

cd "$root"
cmake --preset release >/dev/null
cmake --build --preset release --target idbench idbench-bench idbench-icount -- -j2 >/dev/null
variant=$(build/bin/idbench list --json | "$py" -c '
import json, sys
vs = [v for v in json.load(sys.stdin)["variants"] if v.get("time_based") and not v.get("uses_layout")]
print(vs[0]["name"] if vs else "")')
[ -n "$variant" ] || die "no variant reads a clock without a layout: nothing to plant in"
plant_build() {  # DIR LOOPS
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIDBENCH_WERROR=ON \
    -DIDBENCH_PLANT_VARIANT="$variant" -DIDBENCH_PLANT_LOOPS="$2" >/dev/null
  cmake --build "$1" --target idbench-bench idbench-icount -- -j2 >/dev/null
}
plant_build build-gate-plant-time "$time_loops"
plant_build build-gate-plant-icount "$icount_loops"
echo "gate_campaign: planted variant $variant; time plant $time_loops rounds, icount plant" \
  "$icount_loops rounds" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/idbench-campaign.XXXXXX")
beside_pid=
cleanup() {
  [ -n "$beside_pid" ] && kill -- -"$beside_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$beside" = yes ]; then
  cmake -S "$root" -B "$work/beside" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  set -m
  (while :; do ninja -C "$work/beside" -t clean >/dev/null; CCACHE_DISABLE=1 ninja -C "$work/beside" -j1 idbench_generators >/dev/null 2>&1; done) &
  beside_pid=$!
  set +m
fi
# The icount of each build is measured once per comparison, like the gate does.
started=$(date +%s)
total=$((aa + planted + icount))
n=0
one() {  # KIND NEW_BIN WITH_BENCH(yes|no)
  local kind=$1 new_bin=$2 bench=$3 t0 load cc status=0
  n=$((n + 1))
  t0=$(date +%s)
  read -r load _ </proc/loadavg
  cc=$(pgrep -c cc1plus || true)
  rm -rf "$work/base" "$work/new"
  mkdir -p "$work/base" "$work/new"
  "$py" "$root/bench/run_icount.py" build/bin "$work/base/icount.json" 2>/dev/null
  "$py" "$root/bench/run_icount.py" "$new_bin" "$work/new/icount.json" 2>/dev/null
  if [ "$bench" = yes ]; then
    "$py" "$here/interleave.py" build/bin "$new_bin" "$work/new/interleaved.json" \
      --rounds "$rounds" 2>/dev/null
  fi
  "$py" "$here/compare.py" "$work/base" "$work/new" --allow-missing >"$work/report.md" || status=$?
  "$py" - "$kind" "$status" "$load" "$cc" "$(($(date +%s) - t0))" "$variant" "$work" >>"$log" <<'PY'
import json, sys
kind, status, load, cc, secs, variant, work = sys.argv[1:]
report = open(f"{work}/report.md", encoding="utf-8").read()
verdict = report.split("## Verdict", 1)[-1].split("Notes:", 1)[0]
fails = [l[2:] for l in verdict.splitlines() if l.startswith("- ")]
print(json.dumps({
    "kind": kind, "status": int(status), "load_1m": float(load), "compilers": int(cc),
    "seconds": int(secs), "variant": variant, "failures": fails,
    "caught_by_icount": any("instructions per ID" in l and f": {variant}:" in l for l in fails),
    "caught_by_timing": any(f"generate/{variant}/" in l and "threads:1:" in l for l in fails),
    "widened": "thresholds were widened" in report,
    "rows": [l for l in report.splitlines() if l.startswith(f"| generate/{variant}/")
             or l.startswith(f"| {variant} |")]}))
PY
  local spent=$(($(date +%s) - started))
  echo "gate_campaign: $n/$total $kind exit $status (load $load, $cc compilers); about $((spent * (total - n) / n)) s left" >&2
}
for _ in $(seq "$aa"); do one aa build/bin yes; done
for _ in $(seq "$planted"); do one planted-time build-gate-plant-time/bin yes; done
for _ in $(seq "$icount"); do one planted-icount build-gate-plant-icount/bin no; done
"$py" "$here/gate_campaign_table.py" "$log" >"$out/campaign.md"
cat "$out/campaign.md"
