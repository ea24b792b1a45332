#!/usr/bin/env bash
# End-to-end test of the `chaos` command line: --list, bad input, the JSON keys the issue
# names, and the exit statuses (0 kept, 1 broken, 2 bad input). Usage: chaos_cli_test.sh BIN
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

# A timeline file, written whole.
expect_status 0 "$bin" chaos --scenario leap-second --variant uuidv7 --policy wait \
  --time-scale 0.2 --rate 20000 --quiet --timeline "$tmp/timeline.json"
grep -q '"timeline"' "$tmp/timeline.json" || fail "no timeline written"
grep -q '"reference_start_utc": "2016-12-31T23:59:59.600Z"' "$tmp/timeline.json" ||
  fail "leap-second timeline does not start at 23:59:59.600 (scale 0.2)"
echo "chaos CLI: all checks passed"
