# parts.sh — the default suite's parts: each part runs whatever became of the ones before it,
# and an interrupt stops them all. Sourced by run.sh, which defines say().
#
#   part "bench (quick)" bench/run_bench.sh "$bin" "$latest/bench.json"
#   [ ${#failed_parts[@]} -eq 0 ] || exit 1
#
# A part that fails is named in failed_parts and the parts after it still run; what earlier
# parts wrote is never removed. A part that exits 130 was interrupted (a program of the suite
# ends its servers and removes its files, then exits 130): the run stops there with 130, since
# bash, seeing an exit status rather than a death by SIGINT, would otherwise go on.
failed_parts=()
part() {  # name command...
  local name=$1 status=0
  shift
  say "$name"
  "$@" || status=$?
  if [ "$status" -eq 130 ]; then
    echo "run.sh: interrupted during $name; the parts after it did not run" >&2
    exit 130
  fi
  if [ "$status" -ne 0 ]; then
    failed_parts+=("$name")
    echo "run.sh: $name failed; continuing with the rest" >&2
  fi
}
