#!/bin/sh
# check_leftovers_test.sh — `idbench check` above its memory budget leaves no partitions
# behind: interrupted (SIGINT, SIGTERM) while it spills, it removes its directory and says so
# in one line (exit 130); the directory a SIGKILLed one left is swept by the next check.
#
#   check_leftovers_test.sh IDBENCH
# The IDs come through a FIFO whose writing end this script holds open, so the check is
# still spilling (waiting for more IDs) whenever the signal comes, however fast the machine.
set -u
idbench=$1
work=$(mktemp -d /tmp/check-leftovers-XXXXXX)
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$idbench" generate --variant cas --layout wide --count 100000 --format binary \
  --out "$work/ids.bin" 2>/dev/null || { echo "FAIL: generate"; exit 1; }

# Starts a check reading FIFO $1, writes 800000 bytes into it (100000 IDs: more than one read
# batch, and 50 times what a 64 KiB budget holds) and keeps it open; waits (at most 30 s) for
# the spill directory. Sets $run. SIGINT arrives as from a terminal: not ignored, as a
# background job's would be.
start_spilling_check() {
  mkfifo "$work/$1"
  env --default-signal=INT "$idbench" check --format binary --max-memory 65536 "$work/$1" \
    >"$work/out" 2>"$work/err" &
  run=$!
  exec 3>"$work/$1"
  cat "$work/ids.bin" >&3
  i=0
  until ls -d "$TMPDIR"/idbench-check-$run-* >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -gt 300 ] && { fail "$1: no spill directory appeared"; return 1; }
    sleep 0.1
  done
}

for sig in INT TERM; do
  start_spilling_check "fifo-$sig" || { kill -9 $run; exec 3>&-; continue; }
  kill -s $sig $run
  wait $run
  status=$?
  exec 3>&-
  before=$failed
  failed=0
  [ $status -eq 130 ] || fail "SIG$sig: exit $status, want 130"
  [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "interrupted" "$work/err" ||
    { fail "SIG$sig: stderr is not one line saying it was interrupted:"; cat "$work/err"; }
  left=$(ls "$TMPDIR")
  [ -z "$left" ] || { fail "SIG$sig left $left in TMPDIR"; rm -rf "${TMPDIR:?}"/*; }
  [ $failed -eq 0 ] && echo "ok: SIG$sig: exit $status, $(cat "$work/err")"
  failed=$((failed | before))
done

# SIGKILL cannot be caught: the directory stays, and the next check (any check) sweeps it.
if start_spilling_check fifo-KILL; then
  kill -9 $run
  wait $run 2>/dev/null
  exec 3>&-
  ls -d "$TMPDIR"/idbench-check-$run-* >/dev/null 2>&1 ||
    fail "SIGKILL: expected the killed check's directory to be left for the sweep"
  printf '1\n2\n' >"$work/two"
  "$idbench" check "$work/two" >/dev/null 2>&1 || fail "the check after a SIGKILL failed"
  left=$(ls "$TMPDIR")
  [ -z "$left" ] && echo "ok: the next check swept the SIGKILLed one's directory" ||
    fail "the next check did not sweep $left"
fi
exit $failed
