#!/usr/bin/env bash
# End-to-end checks of `--exec` (an external program as the generator) with small /bin/sh
# programs: IDs that `idbench check` accepts, a bad line named with exit 2 and the IDs before
# it kept, and no program left after SIGKILL or SIGINT of idbench.
set -u
idbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli/expect.sh"  # expect, expect_text, $failures
. "$(dirname "$0")/descendants.sh"    # write_spawner, children_started, none_left
check() {  # check CONDITION-COMMAND... "description"
  local what=${*: -1}
  if "${@:1:$#-1}"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
program() {  # program NAME BODY: an executable /bin/sh script in $tmp
  printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1"
  chmod +x "$tmp/$1"
}
# True when process $1 is gone (or a zombie nobody reaped yet) within 3 s.
gone() {
  for _ in $(seq 30); do
    [ -r "/proc/$1/stat" ] || return 0
    [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ] && return 0
    sleep 0.1
  done
  return 1
}

# Counts up from IDBENCH_NODE_ID * 1000000 (and records its pid when PIDFILE is set).
program counter '[ -n "${PIDFILE:-}" ] && echo $$ >"$PIDFILE"
i=$((IDBENCH_NODE_ID * 1000000))
while read n; do
  j=0; while [ $j -lt $n ]; do i=$((i+1)); echo $i; j=$((j+1)); done
done'
program uuids 'i=0
while read n; do
  j=0; while [ $j -lt $n ]; do i=$((i+1)); printf "0190a5c1-0000-7000-8000-%012x\n" $i; j=$((j+1)); done
done'
# Answers the first request (5 IDs) well; the second has a bad line 7.
program bad 'read n; for i in 1 2 3 4 5; do echo $i; done; read n; echo 6; echo "x y"'

expect 0 "generate --exec a decimal program" \
  "$idbench" generate --exec "$tmp/counter" --batch 100 --threads 2 --node 3 --count 1000 --out "$tmp/dec"
expect 0 "its IDs pass check" "$idbench" check "$tmp/dec"
expect_text " 0 duplicates" "no duplicates from two program instances"
check [ "$(wc -l <"$tmp/dec")" -eq 1000 ] "1000 IDs written"
check grep -qx 3000001 "$tmp/dec" "thread 0's program has node 3"
check grep -qx 4000001 "$tmp/dec" "thread 1's program has node 4"

# Instance k has node id --node + k, and its IDs land in thread-k.txt: every run the same.
for run in 1 2 3 4 5; do
  rm -rf "$tmp/threads"
  mkdir "$tmp/threads"
  "$idbench" generate --exec "$tmp/counter" --batch 10 --threads 3 --node 5 --count 30 \
    --out-dir "$tmp/threads" 2>/dev/null
  got="$(head -qn1 "$tmp/threads"/thread-{0,1,2}.txt | tr '\n' ' ')"
  check [ "$got" = "5000001 6000001 7000001 " ] "run $run: thread-k.txt holds node 5+k's IDs (got $got)"
done

expect 0 "generate --exec a UUID program" \
  "$idbench" generate --exec "sh '$tmp/uuids'" --id-time uuid --count 300 --out "$tmp/uuid"
expect 0 "its UUIDs pass check" "$idbench" check "$tmp/uuid"

expect 2 "a malformed line" \
  "$idbench" generate --exec "$tmp/bad" --batch 5 --count 20 --out "$tmp/kept"
check [ "$(grep -c '^idbench:' "$tmp/err")" -eq 1 ] "one error line"
expect_text "program '$tmp/bad'" "the error names the program"
expect_text "line 7 of its output is not an ID: 'x y'" "the error names the line and its text"
check [ "$(cat "$tmp/kept" | tr '\n' ' ')" = "1 2 3 4 5 " ] "the IDs gathered before are kept"
expect 0 "the kept file is a valid ID file" "$idbench" check "$tmp/kept"

# A program that stops answering, or prints a line with no end: the program's fault, named.
program stops 'read n; echo 1; echo 2; read n; echo 3; exec sleep 60'
expect 2 "a program that stops answering" \
  "$idbench" generate --exec "$tmp/stops" --batch 2 --count 10 --timeout-ms 500 --out "$tmp/none"
check [ "$(grep -c "^idbench:" "$tmp/err")" -eq 1 ] "stops answering: one error line"
expect_text "program '$tmp/stops' (pid [0-9]*): stopped answering after 3 IDs: no answer within 500 ms (--timeout-ms)" \
  "stops answering: named with the IDs it gave and the timeout"
program endless 'read n; head -c 3000000 /dev/zero | tr "\0" 7; exec sleep 60'
expect 2 "a line over 1 MiB" \
  "$idbench" generate --exec "$tmp/endless" --count 1 --timeout-ms 30000 --out "$tmp/none"
check [ "$(grep -c "^idbench:" "$tmp/err")" -eq 1 ] "a line over 1 MiB: one error line"
expect_text "program '$tmp/endless' (pid [0-9]*): printed a line over 1 MiB (line 1 of its output)" \
  "a line over 1 MiB: named as such"

expect 2 "UUIDs from a program described as 64-bit" \
  "$idbench" generate --exec "$tmp/uuids" --count 1 --out "$tmp/none"
expect_text "mixes widths" "the width mismatch is named"
expect 2 "--exec with --variant" "$idbench" generate --exec "$tmp/counter" --variant mutex --count 1
expect 2 "neither --exec nor --variant" "$idbench" generate --count 1
expect_text "either --variant or --exec" "what to give is said"
expect 2 "--id-time without --exec" "$idbench" generate --variant mutex --id-time uuid --count 1
expect 0 "generate --help" "$idbench" generate --help
expect_text "it is kept" "--help says the output is kept after a program failure"

# A program that cannot run is named before anything starts, one line, exit 2, by every command.
printf 'echo 1\n' >"$tmp/not-executable"
while IFS='|' read -r given words; do
  for cmd in "generate --count 1" "chaos --scenario ntp-step-back" "real --seconds 0.05" \
    "locality --rows 10"; do
    read -ra argv <<<"$cmd"
    expect 2 "${argv[0]} --exec $given" "$idbench" "${argv[@]}" --exec "$given"
    check [ "$(wc -l <"$tmp/err")" -eq 1 ] "${argv[0]} --exec $given: one line"
    expect_text "^idbench: --exec: $words" "${argv[0]} --exec $given: says why"
  done
done <<EOF_CASES
|the program is empty
""|the program is empty
   |the program is empty
/tmp|'/tmp' is a directory, not a program
$tmp/not-executable|'$tmp/not-executable' is not executable
$tmp/missing|'$tmp/missing' not found
idbench-no-such-program|'idbench-no-such-program' not found on \$PATH
sh 'x|unbalanced ' quote
EOF_CASES

# real --quiet prints no progress, but a failure is still said (one line, exit 2).
program fails 'exit 3'
expect 2 "real --quiet with a failing program" "$idbench" real --quiet --exec "$tmp/fails" \
  --seconds 0.05 --warmup 0 --locality-rows 0 --clients 1 --requests 1 --out "$tmp/r.json"
check [ "$(wc -l <"$tmp/err")" -eq 1 ] "real --quiet: one line"
expect_text "^idbench: program '$tmp/fails' (pid [0-9]*): exited with status 3" "real --quiet: says what"

# An option that cannot apply to a program is refused by name (one line, exit 2), never ignored.
not_for_exec() {  # not_for_exec COMMAND-ARGS... -- OPTION-ARGS...
  local cmd=() opt=()
  while [ "$1" != -- ]; do cmd+=("$1"); shift; done
  shift
  opt=("$@")
  expect 2 "${cmd[0]} --exec ${opt[*]}" "$idbench" "${cmd[@]}" "${opt[@]}"
  check [ "$(wc -l <"$tmp/err")" -eq 1 ] "${cmd[0]} --exec ${opt[0]}: one line"
  expect_text "^idbench: ${opt[0]} does not apply to --exec: " "${cmd[0]} --exec ${opt[0]}: named"
}
chaos=(chaos --exec "$tmp/counter" --scenario ntp-step-back --time-scale 0.1 --quiet)
for o in "--policy wait" "--persist $tmp/marks" "--reserve-ms 10" "--layout sonyflake" "--matrix" \
  "--out $tmp/m.json" "--quick" "--scenarios ntp-step-back" "--variants mutex" "--policies refuse"; do
  read -ra words <<<"$o"
  not_for_exec "${chaos[@]}" -- "${words[@]}"
done
generate=(generate --exec "$tmp/counter" --count 10 --out "$tmp/g")
not_for_exec "${generate[@]}" -- --policy wait
not_for_exec "${generate[@]}" -- --layout sonyflake
expect 0 "generate --exec --id-time layout --layout" "$idbench" "${generate[@]}" --id-time layout \
  --layout sonyflake
real=(real --exec "$tmp/counter" --seconds 0.05 --warmup 0 --locality-rows 0 --clients 1
  --requests 1 --out "$tmp/r.json" --quiet)
for o in "--flush 2" "--binlog" "--batch 10" "--id-time uuid" "--ordering k_sorted"; do
  read -ra words <<<"$o"
  not_for_exec "${real[@]}" -- "${words[@]}"
done

expect 0 "locality --exec" "$idbench" locality --exec "$tmp/counter" --rows 3000 --writers 2 --json
expect_text "\"$tmp/counter\"\\|'$tmp/counter'" "the run is labelled with the command"
expect 2 "locality --exec with a bad line" "$idbench" locality --exec "$tmp/bad" --batch 5 --rows 20
expect_text "line 7 of its output" "locality names the line"

# kill -9 of idbench: the parent-death signal ends the program.
PIDFILE="$tmp/pid9" "$idbench" generate --exec "$tmp/counter" --count 100000000 --out "$tmp/k9" \
  2>/dev/null &
victim=$!
for _ in $(seq 50); do [ -s "$tmp/pid9" ] && break; sleep 0.1; done
check [ -s "$tmp/pid9" ] "the program started (kill -9)"
kill -9 "$victim"
wait "$victim" 2>/dev/null
check gone "$(cat "$tmp/pid9" 2>/dev/null || echo 0)" "no program left after kill -9 of idbench"

# SIGINT: exit 130, the program killed, no temp file beside --out.
mkdir "$tmp/int"
PIDFILE="$tmp/pidint" "$idbench" generate --exec "$tmp/counter" --count 100000000 \
  --out "$tmp/int/ids" 2>"$tmp/int.err" &
victim=$!
for _ in $(seq 50); do [ -s "$tmp/pidint" ] && break; sleep 0.1; done
check [ -s "$tmp/pidint" ] "the program started (SIGINT)"
kill -INT "$victim"
wait "$victim"
status=$?
check [ "$status" -eq 130 ] "SIGINT: exit 130 (got $status)"
check gone "$(cat "$tmp/pidint" 2>/dev/null || echo 0)" "no program left after SIGINT"
check [ -z "$(ls -A "$tmp/int")" ] "no temp file left beside --out after SIGINT"

# Nothing a program starts outlives the run, in its process group or out of it (setsid): at
# the normal end, after SIGINT, after SIGKILL of idbench; for generate and real.
write_spawner "$tmp/spawner"
for setsid in 0 1; do
  for how in end INT KILL; do
    for cmd in generate real; do
      mark="$cmd-$how-$setsid-$$"
      kids="$tmp/kids-$mark"
      mkdir "$kids"
      count=100 seconds=0.3
      [ "$how" = end ] || count=100000000 seconds=60
      case $cmd in
        generate) args=(generate --exec "$tmp/spawner" --threads 2 --count "$count" --out "$tmp/o") ;;
        real) args=(real --exec "$tmp/spawner" --clients 2 --requests 1 --seconds "$seconds" --warmup 0
                    --locality-rows 0 --out "$tmp/r.json" --quiet) ;;
      esac
      IDBENCH_TEST_MARK=$mark SETSID=$setsid CHILD_DIR=$kids "$idbench" "${args[@]}" \
        >/dev/null 2>&1 &
      victim=$!
      if [ "$how" != end ]; then
        children_started "$kids" 2
        kill "-$how" "$victim"
      fi
      wait "$victim" 2>/dev/null
      check [ "$(ls "$kids" | wc -l)" -eq 2 ] "$cmd ($how, setsid=$setsid): both programs' children ran"
      check none_left "$mark" "$cmd ($how, setsid=$setsid): no descendant of a program is left"
    done
  done
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
