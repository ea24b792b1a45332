#!/usr/bin/env bash
# run_fuzz.sh — runs the fuzz targets and says, per target, how many inputs it executed and what
# it found. Called by ./run.sh (test: 5 s each, stop at the first finding; fuzz: longer, and
# --keep-going to collect every distinct finding).
#
#   fuzz/run_fuzz.sh BIN_DIR SECONDS [--keep-going] [TARGET...]
#
# Each target starts from its seeds in fuzz/corpus/TARGET plus what earlier runs found in
# RUNS/TARGET/corpus (RUNS = BIN_DIR/../fuzz-runs, outside the repository). Inputs that fail
# are kept in RUNS/TARGET/artifacts (emptied at the start of each run), libFuzzer's output in
# RUNS/TARGET/log. Exit status 1 when any target found something.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR SECONDS [--keep-going] [TARGET...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 seconds=$2
shift 2
keep_going=0
if [ "${1:-}" = --keep-going ]; then
  keep_going=1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(ls "$here/corpus")
runs=$(cd "$bin/.." && pwd)/fuzz-runs

# The first line of a report that says what broke: a property, UBSan, ASan or libFuzzer.
first_finding() {  # log
  grep -m1 -E 'FUZZ PROPERTY VIOLATED|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)' \
    "$1" | sed -e 's/^==[0-9]*== *//' -e 's/FUZZ PROPERTY VIOLATED: //' || echo "the fuzzer failed"
}

# One target: its lines on stderr; exit 1 when it found something.
fuzz_one() {  # target
  local t=$1 fuzzer=$bin/fuzz_$1 dir=$runs/$1 failed=0 execs input what key
  mkdir -p "$dir/corpus"
  rm -rf "$dir/artifacts"
  mkdir -p "$dir/artifacts"
  local options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1
                 -artifact_prefix="$dir/artifacts/")
  [ "$keep_going" = 1 ] && options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  "$fuzzer" "${options[@]}" "$dir/corpus" "$here/corpus/$t" >"$dir/log" 2>&1 || failed=1
  # Executions: the final stats (one process), else the last progress line (fork mode).
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$dir/log" | tail -1)
  local found
  mapfile -t found < <(find "$dir/artifacts" -type f | sort)
  if [ "$failed" = 0 ] && [ ${#found[@]} -eq 0 ]; then
    printf '  %-16s %10s executions, no finding\n' "$t" "${execs:-?}" >&2
    return 0
  fi
  if [ "$keep_going" = 0 ]; then
    printf '  %-16s %10s executions, FOUND: %s\n' "$t" "${execs:-?}" "$(first_finding "$dir/log")" >&2
    printf '  %-16s input: %s (report: %s)\n' "" "${found[0]:-?}" "$dir/log" >&2
    return 1
  fi
  # Every failing input again, alone, to name what it breaks; one line per distinct finding.
  printf '  %-16s %10s executions, %d failing inputs:\n' "$t" "${execs:-?}" ${#found[@]} >&2
  # Findings are told apart by a key: the report line without its numbers, and for a message
  # defect only its kind (newline, control character, invalid UTF-8), not the message.
  for input in "${found[@]}"; do
    "$fuzzer" "$input" >"$input.log" 2>&1 || true
    what=$(first_finding "$input.log")
    key=$(sed -E -e 's/bad message \((a newline|control character|invalid UTF-8).*/\1/' \
      -e 's/[0-9]+/N/g' <<<"$what")
    printf '%s\t%s\t%s\n' "$key" "${what:0:240}" "$input"
  done | sort -t$'\t' -k1,1 -u | while IFS=$'\t' read -r _ what input; do
    printf '  %-16s   %s\n  %-16s     e.g. %s\n' "" "$what" "" "$input" >&2
  done
  return 1
}

for t in "${targets[@]}"; do
  [ -x "$bin/fuzz_$t" ] || { echo "run_fuzz.sh: no fuzz target '$t' ($bin/fuzz_$t)" >&2; exit 2; }
done
# Each libFuzzer process uses one core: IDBENCH_FUZZ_JOBS of them at a time (default 2), each
# target's lines shown when it ends, in the order given.
parallel=${IDBENCH_FUZZ_JOBS:-2}
status=0
pids=()
names=()
finish_oldest() {
  wait "${pids[0]}" || status=1
  cat "$runs/${names[0]}/summary" >&2
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
}
for t in "${targets[@]}"; do
  mkdir -p "$runs/$t"
  fuzz_one "$t" 2>"$runs/$t/summary" &
  pids+=($!)
  names+=("$t")
  [ ${#pids[@]} -lt "$parallel" ] || finish_oldest
done
while [ ${#pids[@]} -gt 0 ]; do finish_oldest; done
exit "$status"
