#!/usr/bin/env bash
# End-to-end test of the `chaos` command line: --list, bad input, the JSON keys every
# run reports, and the exit statuses (0 kept, 1 broken, 2 bad input). Usage: chaos_cli_test.sh BIN
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_status() {  # status command...
  local want=$1 got=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  [ "$got" = "$want" ] || { cat "$tmp/err" >&2; fail "$* exited $got, expected $want"; }
}

json_number() {  # key file: the first "key": N in the file
  sed -n "s/^  \"$1\": \([0-9.]*\),\{0,1\}$/\1/p" "$2" | head -1
}

expect_status 0 "$bin" chaos --list
for s in ntp-step-back ntp-slew leap-second leap-smear vm-pause restart-during-regression \
         epoch-exhaustion worker-collision skew; do
  grep -q "^  $s " "$tmp/out" || fail "--list does not name $s"
done

expect_status 2 "$bin" chaos --scenario no-such --variant cas
grep -q "unknown scenario 'no-such'; one of: ntp-step-back" "$tmp/err" || fail "no scenario list"
expect_status 2 "$bin" chaos --scenario skew --variant cas --policy sometimes
grep -q "unknown policy" "$tmp/err" || fail "bad policy message"
expect_status 2 "$bin" chaos --scenario skew
expect_status 2 "$bin" chaos --scenario skew --variant cas --nodes 0
expect_status 2 "$bin" chaos --matrix

# The acceptance command, shortened: refusals > 0, duplicates 0, exit 0.
expect_status 0 "$bin" chaos --scenario ntp-step-back --variant cas --policy refuse --nodes 2 \
  --json --time-scale 0.2 --rate 20000 --quiet
for key in scenario variant policy nodes ids duplicates order_violations refusals \
           availability max_stall_ms ksort_bound_ms promise_kept context; do
  grep -q "^  \"$key\":" "$tmp/out" || fail "--json lacks $key"
done
[ "$(json_number duplicates "$tmp/out")" = 0 ] || fail "refuse produced duplicates"
[ "$(json_number refusals "$tmp/out")" -gt 0 ] || fail "refuse did not refuse"
grep -q '"promise_kept": true' "$tmp/out" || fail "refuse broke its promise"

# ... and with unsafe: duplicates > 0, caught, exit 0 (unsafe promises nothing).
expect_status 0 "$bin" chaos --scenario ntp-step-back --variant cas --policy unsafe --nodes 2 \
  --json --time-scale 0.2 --rate 20000 --quiet
[ "$(json_number duplicates "$tmp/out")" -gt 0 ] || fail "unsafe produced no duplicates"
grep -q '"caught": true' "$tmp/out" || fail "unsafe's duplicates not caught"

# clock-sequence (DCE 1994): through all three steps a new clock sequence (UUIDv6)
# or generation (2 gen bits of a Snowflake layout) per step: no refusal, no duplicate.
for run in "--variant uuidv6" \
           "--variant mutex --layout ts=41,node=8,gen=2,seq=12,epoch=1288834974657"; do
  # shellcheck disable=SC2086
  expect_status 0 "$bin" chaos --scenario ntp-step-back $run --policy clock-sequence --nodes 2 \
    --json --time-scale 0.2 --rate 20000 --quiet
  [ "$(json_number duplicates "$tmp/out")" = 0 ] || fail "clock-sequence ($run) duplicated"
  [ "$(json_number refusals "$tmp/out")" = 0 ] || fail "clock-sequence ($run) refused"
  grep -q '"promise_kept": true' "$tmp/out" || fail "clock-sequence ($run) broke its promise"
done

# A timeline file, written whole.
expect_status 0 "$bin" chaos --scenario leap-second --variant uuidv7 --policy wait \
  --time-scale 0.2 --rate 20000 --quiet --timeline "$tmp/timeline.json"
grep -q '"timeline"' "$tmp/timeline.json" || fail "no timeline written"
grep -q '"reference_start_utc": "2016-12-31T23:59:59.600Z"' "$tmp/timeline.json" ||
  fail "leap-second timeline does not start at 23:59:59.600 (scale 0.2)"
# Every bad input is ONE line on stderr and exit 2, and leaves nothing behind. Runs
# get a private TMPDIR, so a run directory left behind would show there.
export TMPDIR=$tmp/t
mkdir -p "$TMPDIR"
one_line() {  # status command...: exits $status, exactly one line on stderr
  expect_status "$@"
  [ "$(wc -l <"$tmp/err")" = 1 ] || { cat "$tmp/err" >&2; fail "$* printed more than one line"; }
}
nothing_left() {
  [ -z "$(ls -A "$TMPDIR")" ] || { ls -la "$TMPDIR" >&2; fail "$1 left files behind"; }
}
quick=(--scenario skew --variant cas --time-scale 0.2 --rate 20000 --quiet)

# Absurd numbers are bad input, not 0 IDs and "kept": rejected while parsing.
for bad in "--time-scale 1e300" "--time-scale 1e-9" "--time-scale nan" "--rate nan" \
           "--rate inf" "--rate 1e300" "--rate -5"; do
  # shellcheck disable=SC2086
  one_line 2 "$bin" chaos --scenario skew --variant cas $bad --quiet
done
grep -q "^idbench: --rate: must be 0 (flat out) or 1 … 1e+07 IDs/s per node, not -5" "$tmp/err" ||
  fail "rate message: $(cat "$tmp/err")"
# An empty value is not 0 (CLI11 would store 0: flat out, or the matrix's default scale).
one_line 2 "$bin" chaos --scenario skew --variant cas --rate "" --quiet
one_line 2 "$bin" chaos --matrix --out "$tmp/m.json" --time-scale ""
one_line 2 "$bin" chaos --matrix --out "$tmp/m.json" --time-scale 1e300
[ ! -e "$tmp/m.json" ] || fail "a rejected matrix wrote its --out"
# --systems: known real systems without a server, once each, in the matrix only.
one_line 2 "$bin" chaos --matrix --out "$tmp/m.json" --systems no-such-system
grep -q "^idbench: --systems: unknown system 'no-such-system' (idbench list)$" "$tmp/err" ||
  fail "systems message: $(cat "$tmp/err")"
one_line 2 "$bin" chaos --matrix --out "$tmp/m.json" --systems mariadb-auto-increment
grep -q "runs on a server; its faults are real-chaos's$" "$tmp/err" || fail "server system: $(cat "$tmp/err")"
one_line 2 "$bin" chaos --matrix --out "$tmp/m.json" --systems python-uuid1,python-uuid1
one_line 2 "$bin" chaos --scenario skew --variant cas --systems python-uuid1
[ ! -e "$tmp/m.json" ] || fail "a rejected matrix wrote its --out"

# --persist or --keep that is a file, or (as an unprivileged user) read-only.
touch "$tmp/file"
one_line 2 "$bin" chaos "${quick[@]}" --persist "$tmp/file"
grep -q "^idbench: --persist $tmp/file: not a directory$" "$tmp/err" || fail "persist file message"
one_line 2 "$bin" chaos "${quick[@]}" --keep "$tmp/file"
one_line 2 "$bin" chaos "${quick[@]}" --persist "$tmp/file/sub"
nothing_left "--persist FILE"
as_user=()
if [ "$(id -u)" = 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
mkdir -p "$tmp/ro"
chmod 755 "$tmp" "$tmp/t"
chmod 555 "$tmp/ro"
if [ ${#as_user[@]} -gt 0 ] || [ "$(id -u)" != 0 ]; then
  chmod 777 "$TMPDIR"
  one_line 2 "${as_user[@]}" "$bin" chaos "${quick[@]}" --persist "$tmp/ro"
  grep -q "^idbench: --persist $tmp/ro: not writable: Permission denied$" "$tmp/err" ||
    fail "read-only persist message: $(cat "$tmp/err")"
  one_line 2 "${as_user[@]}" "$bin" chaos "${quick[@]}" --keep "$tmp/ro"
  one_line 2 "${as_user[@]}" "$bin" chaos "${quick[@]}" --timeline "$tmp/ro/t.json"
  one_line 2 "${as_user[@]}" "$bin" chaos --matrix --quick --scenarios skew --time-scale 0.2 \
    --out "$tmp/ro/m.json"
  [ -z "$(ls -A "$tmp/ro")" ] || fail "a read-only --out left a temp file"
  nothing_left "a read-only directory"
  chmod 755 "$TMPDIR"
fi

# --timeline into a missing directory or a full disk: exit 2, never invalid JSON.
one_line 2 "$bin" chaos "${quick[@]}" --timeline "$tmp/nodir/t.json"
[ ! -e "$tmp/nodir" ] || fail "--timeline nodir/ created something"
one_line 2 "$bin" chaos "${quick[@]}" --timeline /dev/full
grep -q "/dev/full" "$tmp/err" || fail "/dev/full message"
nothing_left "--timeline"
# ...and the matrix's --out: no m.json.tmp-PID left by a write that failed.
one_line 2 "$bin" chaos --matrix --quick --scenarios skew --out "$tmp/nodir/m.json"
one_line 2 "$bin" chaos --matrix --quick --scenarios skew --out /dev/full

# A corrupt mark is one line naming the file, its bytes escaped, never raw.
mkdir -p "$tmp/marks"
printf '1700000000000\r\n' >"$tmp/marks/node-0.hwm"
one_line 2 "$bin" chaos --scenario restart-during-regression --variant cas --quiet \
  --persist "$tmp/marks"
grep -qF '"1700000000000\r\n" (15 bytes)' "$tmp/err" || fail "CRLF mark not shown: $(cat "$tmp/err")"
printf '\033[31m\000\377' >"$tmp/marks/node-0.hwm"
one_line 2 "$bin" chaos --scenario restart-during-regression --variant cas --quiet \
  --persist "$tmp/marks"
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f\xff]' "$tmp/err"; then fail "raw bytes in the message"; fi
head -c 70 /dev/zero | tr '\0' 0 >"$tmp/marks/node-0.hwm"
one_line 2 "$bin" chaos --scenario restart-during-regression --variant cas --quiet \
  --persist "$tmp/marks"
grep -q "corrupt" "$tmp/err" || fail "70 zeros accepted"
nothing_left "a corrupt mark"

# worker-collision with --persist: both nodes store node 0's mark; it must run.
rm -rf "$tmp/marks"
expect_status 0 "$bin" chaos --scenario worker-collision --variant cas --persist "$tmp/marks" \
  --time-scale 0.3 --rate 20000 --reserve-ms 1 --quiet
echo "chaos CLI: all checks passed"
