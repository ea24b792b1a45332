#!/usr/bin/env bash
# End-to-end checks of the idbench binary: the exit codes and messages the README promises.
set -u
idbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
expect() {  # expect CODE "description" command...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, want $want"; cat "$tmp/out" "$tmp/err"; failures=$((failures + 1))
  else
    echo "ok: $what"; passes=$((passes + 1))
  fi
}
expect_text() {  # expect_text "pattern" "description" (against the last command's output)
  if ! grep -q -- "$1" "$tmp/out" "$tmp/err"; then
    echo "FAIL: $2: no '$1' in output"; cat "$tmp/out" "$tmp/err"; failures=$((failures + 1))
  fi
}

expect 0 "decode discord example" "$idbench" decode --layout discord 175928847299117063
expect_text "2016-04-30T11:18:25.796Z" "discord time"
expect_text "worker=1  process=0" "discord worker and process"

for v in mutex cas thread-local uuidv7 uuidv7-random uuidv4 auto-increment ticket-pair; do
  expect 0 "generate $v" "$idbench" generate --variant "$v" --threads 2 --count 200000 --out "$tmp/$v"
  expect 0 "check $v" "$idbench" check "$tmp/$v"
  expect_text " 0 duplicates" "$v has no duplicates"
done

# Planted defects: the checker must catch them.
head -n 1000 "$tmp/mutex" >"$tmp/dup" && sed -n 500p "$tmp/mutex" >>"$tmp/dup"
expect 1 "check finds a planted duplicate" "$idbench" check "$tmp/dup"
expect_text "1 duplicate" "duplicate counted"
expect_text "dup:500" "duplicate located at line 500"
{ sed -n 2p "$tmp/mutex"; sed -n 1p "$tmp/mutex"; sed -n '3,100p' "$tmp/mutex"; } >"$tmp/swap"
expect 0 "order violation alone passes without --strict-order" "$idbench" check "$tmp/swap"
expect_text "1 order violation" "order violation counted"
expect 1 "order violation fails with --strict-order" "$idbench" check --strict-order "$tmp/swap"
expect 1 "duplicate across two files" "$idbench" check "$tmp/mutex" "$tmp/dup"

# Bad input: a clear message and exit 2.
printf '12\n13\nabc\n' >"$tmp/bad"
expect 2 "non-numeric line" "$idbench" check "$tmp/bad"
expect_text "bad:3" "bad line is named"
expect 2 "missing file" "$idbench" check "$tmp/nope"
expect 2 "layout with too many bits" "$idbench" generate --variant mutex --layout ts=50,node=10,seq=12 --count 1
expect_text "needs 72 bits" "too-many-bits message"
expect 2 "node out of range" "$idbench" generate --variant mutex --layout twitter --node 5000 --count 1
expect_text "node id 5000" "node message"
expect 2 "unknown flag" "$idbench" generate --variant mutex --count 1 --bogus
expect 2 "unknown variant" "$idbench" generate --variant nope --count 1
expect 2 "unknown policy" "$idbench" generate --variant mutex --policy nope --count 1
expect 0 "help" "$idbench" generate --help

# Binary round trip, and a truncated binary file is bad input.
expect 0 "binary generate" "$idbench" generate --variant uuidv7 --count 1000 --format binary --out "$tmp/v7.bin"
expect 0 "binary check" "$idbench" check --format binary --id-bits 128 "$tmp/v7.bin"
head -c 100 "$tmp/v7.bin" >"$tmp/trunc.bin"
expect 2 "truncated binary" "$idbench" check --format binary --id-bits 128 "$tmp/trunc.bin"

# Epoch exhaustion: refused with the last date, never wrapped.
expect 3 "generator refuses past the layout's lifetime" "$idbench" generate --variant mutex --layout ts=20,node=10,seq=12,epoch=0 --count 1
expect_text "last representable time is 1970-01-01" "lifetime message"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
