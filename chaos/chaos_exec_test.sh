#!/usr/bin/env bash
# End-to-end test of `idbench chaos --exec`: the fault check on a program that reads the clock
# by raw syscall (statically linked: libfaketime never reaches it, the ptrace injector does)
# and on its libc twin, no program left behind after a kill -9 of its node or of idbench, and
# Python's uuid1 under ntp-step-back. Usage: chaos_exec_test.sh IDBENCH RAW_PROGRAM LIBC_PROGRAM ADAPTER
set -euo pipefail
bin=$1 raw=$2 libc=$3 adapter=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
quick=(--time-scale 0.3 --rate 20000 --batch 100 --quiet)

run() {  # want-status args...: runs idbench chaos, output in $tmp/out and $tmp/err
  local want=$1 got=0
  shift
  "$bin" chaos "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  [ "$got" = "$want" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "chaos $* exited $got, not $want"; }
}

# The raw-clock program never sees the step: fault not applied, exit 1, never "kept".
run 1 --exec "$raw" --id-time layout --layout twitter --scenario ntp-step-back "${quick[@]}"
head -1 "$tmp/out" | grep -q ": fault not applied: node [01] at +0\.1[0-9] s" || fail "raw: $(head -1 "$tmp/out")"
grep -q "kept" "$tmp/out" && fail "raw: a run whose fault was not applied says kept"

# Whatever --id-time says, the raw-clock program is never "kept". Its 64-bit IDs under a
# 128-bit --id-time are refused as generate refuses them (the same line, exit 2); under none
# nothing in its IDs can show a fault (a probe of its environment is not the program).
norm() { sed -E "s/ \(pid [0-9]+\)//; s/'[0-9]+'/'ID'/" "$1"; }
for t in uuid uuidv7 ulid ksuid none; do
  want=2
  [ "$t" = none ] && want=1
  run $want --exec "$raw" --id-time $t --scenario ntp-step-back "${quick[@]}"
  grep -q "kept" "$tmp/out" && fail "raw --id-time $t: kept"
  if [ "$t" = none ]; then
    head -1 "$tmp/out" | grep -q ": not verified: the IDs carry no time$" ||
      fail "raw --id-time none: $(head -1 "$tmp/out")"
    continue
  fi
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "raw --id-time $t: not one line: $(cat "$tmp/err")"
  got=0
  "$bin" generate --exec "$raw" --id-time $t --count 1 >/dev/null 2>"$tmp/gen.err" || got=$?
  [ "$got" = 2 ] || fail "generate --id-time $t exited $got"
  [ "$(norm "$tmp/err")" = "$(norm "$tmp/gen.err")" ] ||
    fail "raw --id-time $t: chaos said '$(cat "$tmp/err")', generate '$(cat "$tmp/gen.err")'"
done

# Its libc twin follows the faked clock: every fault applied, and it keeps its promise.
run 0 --exec "$libc" --id-time layout --layout twitter --scenario ntp-step-back "${quick[@]}"
head -1 "$tmp/out" | grep -q ": kept: 0 duplicates" || fail "libc: $(head -1 "$tmp/out")"
grep -q "6 of 6 clock faults applied" "$tmp/out" || fail "libc: $(grep 'fault check' "$tmp/out")"

# The ptrace injector reaches what libfaketime cannot: the static raw-syscall program's clock
# reads are trapped and rewritten, so every fault is applied, and it keeps its promise.
run 0 --exec "$raw" --id-time layout --layout twitter --scenario ntp-step-back \
  --clock-injector ptrace "${quick[@]}"
head -1 "$tmp/out" | grep -q ": kept: 0 duplicates" || fail "raw, ptrace: $(head -1 "$tmp/out")"
grep -q "6 of 6 clock faults applied" "$tmp/out" ||
  fail "raw, ptrace: $(grep 'fault check' "$tmp/out")"

# A node the injector refuses (exit 3, its one line) is that refusal, exit 3, never a run on
# the true clock; a stand-in injector ($IDBENCH_INJECT) plays the refusal.
printf '#!/bin/sh\necho "idbench-inject: process 42: a vDSO it does not recognise" >&2\nexit 3\n' \
  >"$tmp/refusing-inject"
chmod +x "$tmp/refusing-inject"
got=0
IDBENCH_INJECT=$tmp/refusing-inject "$bin" chaos --variant cas --scenario ntp-step-back \
  --clock-injector ptrace --time-scale 0.3 --quiet >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" = 3 ] || fail "a refused node: exit $got, not 3: $(cat "$tmp/err")"
grep -q "^idbench: node [01]: idbench-inject: process 42: a vDSO it does not recognise$" \
  "$tmp/err" || fail "a refused node: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "a refused node: not one line: $(cat "$tmp/err")"

# Each node thread runs its own instance with its own node id: two instances that ignore it
# repeat each other's IDs, which is a repeat across instances, never within one.
run 1 --exec "$libc 0" --id-time layout --layout twitter --scenario ntp-step-back --nodes 1 \
  --threads 2 "${quick[@]}"
head -1 "$tmp/out" | grep -qE ": BROKEN: [0-9]+ duplicates? across program instances with distinct node ids$" ||
  fail "one node id for two instances: $(head -1 "$tmp/out")"
grep -q "within one program instance" "$tmp/out" && fail "two instances called one: $(cat "$tmp/out")"

# A program that stops answering (its --timeout-ms longer than the run), or prints a line with
# no end: the program's fault, one line naming it and what it did, exit 2 (not "no evidence").
printf '#!/bin/sh\ni=0; k=0\nwhile read n; do\n  k=$((k+1)); [ $k -gt 4 ] && exec sleep 60\n  j=0; while [ $j -lt $n ]; do i=$((i+1)); echo $i; j=$((j+1)); done\ndone\n' >"$tmp/stops"
printf '#!/bin/sh\nread n; echo 1; read n\nhead -c 3000000 /dev/zero | tr "\\0" 7; exec sleep 60\n' >"$tmp/endless"
chmod +x "$tmp/stops" "$tmp/endless"
run 2 --exec "$tmp/stops" --scenario ntp-step-back --timeout-ms 4000 --nodes 1 --threads 1 "${quick[@]}"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "stops: not one line: $(cat "$tmp/err")"
grep -qE "^idbench: program '$tmp/stops' \(pid [0-9]+\): stopped answering after 301 IDs: no answer within 4000 ms \(--timeout-ms\)" "$tmp/err" ||
  fail "stops: $(cat "$tmp/err")"
run 2 --exec "$tmp/endless" --scenario ntp-step-back --timeout-ms 30000 --nodes 1 --threads 1 "${quick[@]}"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "endless: not one line: $(head -c 300 "$tmp/err")"
grep -qE "^idbench: program '$tmp/endless' \(pid [0-9]+\): printed a line over 1 MiB \(line 2 of its output\)" "$tmp/err" ||
  fail "endless: $(head -c 300 "$tmp/err")"

# kill -9 of node 0 (restart-during-regression): its programs die with it. The copy has a
# name no other process has, so pgrep -f finds exactly its instances.
prog="$tmp/idbench-exec-test-$$"
cp "$libc" "$prog"
# It restarts inside the regression and repeats IDs across the restart, exit 1; on a machine so
# loaded that the program came back after its clock had caught up, the cell is no evidence,
# exit 1 too; never "kept".
got=0
"$bin" chaos --exec "$prog" --id-time layout --layout twitter --scenario restart-during-regression \
  --rate 20000 --batch 100 --quiet >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" = 1 ] || { cat "$tmp/out" "$tmp/err" >&2; fail "restart exited $got, not 1"; }
grep -q "across a restart of the program" "$tmp/out" ||
  head -1 "$tmp/out" | grep -q ": no evidence: node 0 (incarnation 1) made its first call at .*: it never ran behind$" ||
  fail "restart: $(head -1 "$tmp/out")"
sleep 0.2
pgrep -f "$prog" >/dev/null && fail "a program outlived its node"

# kill -9 of idbench itself: nodes and programs die with it.
"$bin" chaos --exec "$prog" --id-time layout --layout twitter --scenario ntp-step-back \
  --rate 20000 --quiet >/dev/null 2>&1 &
driver=$!
for _ in $(seq 50); do pgrep -f "$prog" >/dev/null && break; sleep 0.1; done
pgrep -f "$prog" >/dev/null || fail "the programs never started"
kill -9 "$driver"
wait "$driver" 2>/dev/null || true
for _ in $(seq 30); do pgrep -f "$prog" >/dev/null || break; sleep 0.1; done
pgrep -f "$prog" >/dev/null && fail "a program outlived a killed idbench"

# Nothing a program starts outlives the run, in its process group or out of it (setsid): at
# the normal end, after SIGINT, after SIGKILL of idbench (4 instances: 2 nodes × 2 threads).
. "$(dirname "$0")/../external/descendants.sh"
write_spawner "$tmp/spawner"
for setsid in 0 1; do
  for how in end INT KILL; do
    mark="chaos-$how-$setsid-$$"
    kids="$tmp/kids-$mark"
    mkdir "$kids"
    scale=0.1
    [ "$how" = end ] || scale=1
    IDBENCH_TEST_MARK=$mark SETSID=$setsid CHILD_DIR=$kids "$bin" chaos --exec "$tmp/spawner" \
      --scenario ntp-step-back --time-scale $scale --quiet >/dev/null 2>&1 &
    victim=$!
    if [ "$how" != end ]; then
      children_started "$kids" 4 || fail "$how, setsid=$setsid: the programs' children never ran"
      kill "-$how" "$victim"
    fi
    wait "$victim" 2>/dev/null || true
    [ "$(ls "$kids" | wc -l)" = 4 ] || fail "$how, setsid=$setsid: $(ls "$kids" | wc -l) children ran, not 4"
    none_left "$mark" || fail "$how, setsid=$setsid: a program's descendant outlived the run"
  done
done

# Python's uuid1 (through libuuid) under ntp-step-back: the fault reaches it and a verdict is
# reported (duplicates would be a finding, exit 1, not a harness failure).
if [ -x /usr/bin/python3 ]; then
  got=0
  "$bin" chaos --exec "$adapter python uuid1" --id-time uuid --scenario ntp-step-back \
    "${quick[@]}" >"$tmp/out" 2>"$tmp/err" || got=$?
  [ "$got" = 0 ] || [ "$got" = 1 ] || { cat "$tmp/err" >&2; fail "python uuid1 exited $got"; }
  grep -q "6 of 6 clock faults applied" "$tmp/out" || fail "python uuid1: $(cat "$tmp/out")"
else
  echo "python3 missing: the uuid1 run is skipped"
fi
echo "chaos --exec: all checks passed"
