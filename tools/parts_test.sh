#!/usr/bin/env bash
# parts_test.sh — the default suite's parts: a failed part is noted and the rest run; an
# interrupted part (exit 130) stops the run with 130 and nothing after it runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # description condition...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

# A suite of three parts, the first two given as commands: prints failed_parts, then exits 0.
suite() {  # first second
  bash -c '
    set -euo pipefail
    say() { echo "==> $*" >&2; }
    source "$1/parts.sh"
    part one sh -c "$2"
    part two sh -c "$3"
    part three touch "$4/three"
    echo "failed: ${failed_parts[*]:-none}"' suite "$here" "$1" "$2" "$tmp" >"$tmp/out" 2>"$tmp/err"
}

suite 'exit 3' 'exit 0'
status=$?
check "a failed part lets the run go on" test "$status" -eq 0 -a -e "$tmp/three"
check "and is named" grep -qx "failed: one" "$tmp/out"
check "with one line on stderr" grep -q "one failed; continuing with the rest" "$tmp/err"

rm -f "$tmp/three"
# The program of a part ends on SIGINT with 130 after removing what it made; bash, seeing an
# exit status and not a death by the signal, went on to the next part.
suite 'exit 0' 'exit 130'
status=$?
check "an interrupted part stops the run with 130 (got $status)" [ "$status" -eq 130 ]
check "no part after it runs" [ ! -e "$tmp/three" ]
check "and says so" grep -q "interrupted during two" "$tmp/err"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all parts checks passed"
