#!/usr/bin/env bash
# End-to-end checks of the idbench binary: the exit codes and messages the README promises.
set -u
idbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/expect.sh"  # expect, expect_text, $failures

expect 0 "decode discord example" "$idbench" decode --layout discord 175928847299117063
expect_text "2016-04-30T11:18:25.796Z" "discord time"
expect_text "worker=1  process=0" "discord worker and process"
# RFC 9562 Appendix A: the v1 and v6 vectors are the same instant, clock sequence and node.
for u in C232AB00-9414-11EC-B3C8-9F6BDECED846 1EC9414C-232A-6B00-B3C8-9F6BDECED846; do
  expect 0 "decode RFC 9562 vector $u" "$idbench" decode "$u"
  expect_text "time=2022-02-22T19:22:22.000Z" "$u: its time"
  expect_text "clock_seq=0x33c8" "$u: its clock sequence, variant bits removed"
  expect_text "node=9f6bdeced846" "$u: its node"
done

for v in mutex cas thread-local uuidv7 uuidv7-random uuidv4 auto-increment ticket-pair uuidv8; do
  expect 0 "generate $v" "$idbench" generate --variant "$v" --threads 2 --count 200000 --out "$tmp/$v"
  expect 0 "check $v" "$idbench" check "$tmp/$v"
  expect_text " 0 duplicates" "$v has no duplicates"
done
expect 0 "generate uuidv8 as node 4242" "$idbench" generate --variant uuidv8 --node 4242 --count 3 --out "$tmp/v8"
expect 0 "decode a uuidv8" "$idbench" decode "$(tail -n 1 "$tmp/v8")"
# counter 2 when the three IDs share a ms; a slow (sanitizer) build may cross into the next ms,
# which restarts the counter (generators_test checks the counter under a manual clock).
expect_text "version=8  .*read_as=idbench uuidv8  time=20.*node=4242  counter=[0-2]  random=" "uuidv8 fields"
expect 2 "uuidv8 node beyond 16 bits" "$idbench" generate --variant uuidv8 --node 65536 --count 1
expect_text "node id 65536 does not fit uuidv8" "uuidv8 node message"

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
# A floating-point option's range also refuses NaN and infinities (every comparison with NaN is
# false, so a plain range check lets it through: real-chaos then ran MariaDB for 5.8 s).
# Each probe is otherwise a valid command, so the only thing to refuse is the number.
for probe in "real-chaos --scenario all --time-scale nan" "real-chaos --scenario all --time-scale inf" \
             "real --system quick --seconds nan" "real --system quick --warmup nan" \
             "real --system quick --locality-seconds nan" "locality --variant cas --pool-percent nan" \
             "worker-ids --rates --rate-seconds nan"; do
  option=$(echo "$probe" | grep -o -- '--[a-z-]* [a-z]*$' | cut -d' ' -f1)
  # shellcheck disable=SC2086  # the probe is words
  timeout 20 "$idbench" $probe >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ $got -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -- "$option" "$tmp/err"; then
    echo "FAIL: $probe: exit $got, want 2 and one line naming $option"; cat "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok: $probe is refused"; passes=$((passes + 1))
  fi
done
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

# Every bad input one clear line and exit 2 (3 where a generator refuses).
expect_one_line() {  # the last command wrote exactly one line to stderr
  if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: $1: stderr is not one line"; cat "$tmp/err"; failures=$((failures + 1))
  fi
}
for c in -1 18446744073709551615 18446744073709551616 1e10 ""; do
  expect 2 "generate --count '$c' is refused" "$idbench" generate --variant mutex --count "$c"
  expect_one_line "--count '$c'"
done
expect 2 "--count 18446744073709551615" "$idbench" generate --variant mutex --count 18446744073709551615
expect_text "out of range" "--count 18446744073709551615 named out of range"
expect 2 "--count 1e10" "$idbench" generate --variant mutex --count 1e10
expect_text "not a whole decimal number" "--count 1e10 explained"
expect 2 "--node 18446744073709551616" "$idbench" generate --variant mutex --node 18446744073709551616 --count 1
expect_text "18446744073709551616 is out of range" "--node named as given, not as ...615"
expect 2 "worker-thread NodeError reaches the CLI" "$idbench" generate --variant thread-local --threads 8 --node 1023 --count 800000 --out "$tmp/tl"
expect_text "beyond the layout's last node id" "NodeError message"
expect_one_line "worker-thread error"
[ -e "$tmp/tl" ] && { echo "FAIL: a failed generate left $tmp/tl"; failures=$((failures + 1)); }
expect 3 "generate --layout baidu refuses" "$idbench" generate --variant mutex --layout baidu --count 3
expect_one_line "baidu refusal"
if grep -q "0 IDs" "$tmp/err"; then echo "FAIL: '0 IDs' printed before the refusal"; failures=$((failures + 1)); fi

# --out to a FIFO or /dev/stdout is written through; a symlink's target is written.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
expect 0 "generate into a FIFO" "$idbench" generate --variant mutex --count 5 --out "$tmp/fifo"
wait
[ -p "$tmp/fifo" ] && [ "$(wc -l <"$tmp/from-fifo")" -eq 5 ] || { echo "FAIL: FIFO replaced or IDs lost"; failures=$((failures + 1)); }
expect 0 "generate --out /dev/stdout" "$idbench" generate --variant mutex --count 4 --out /dev/stdout
[ "$(wc -l <"$tmp/out")" -eq 4 ] || { echo "FAIL: /dev/stdout got $(wc -l <"$tmp/out") lines"; failures=$((failures + 1)); }
echo old >"$tmp/target.txt" && ln -s target.txt "$tmp/link.txt"
expect 0 "generate --out symlink" "$idbench" generate --variant mutex --count 3 --out "$tmp/link.txt"
[ -L "$tmp/link.txt" ] && [ "$(wc -l <"$tmp/target.txt")" -eq 3 ] || { echo "FAIL: symlink replaced or target not written"; failures=$((failures + 1)); }
# Every write and the final flush are checked.
expect 2 "generate >/dev/full" sh -c "\"$idbench\" generate --variant mutex --count 10 >/dev/full"
expect_text "No space left on device" "/dev/full named"
expect 2 "generate with stdout closed" sh -c "\"$idbench\" generate --variant mutex --count 10 >&-"
expect 2 "check >/dev/full" sh -c "\"$idbench\" check \"$tmp/mutex\" >/dev/full"
# --out-dir commits every file or none; a killed run's temp files are swept.
mkdir "$tmp/od" && echo keep >"$tmp/od/thread-0.txt" && ln -s /dev/full "$tmp/od/thread-1.txt"
expect 2 "--out-dir with a failing file" "$idbench" generate --variant mutex --threads 2 --count 10 --out-dir "$tmp/od"
[ "$(cat "$tmp/od/thread-0.txt")" = keep ] || { echo "FAIL: thread-0.txt committed though thread-1 failed"; failures=$((failures + 1)); }
rm "$tmp/od/thread-1.txt"
sh -c 'echo $$ >"$1/pid"; exec sleep 60' sh "$tmp" & sleeper=$!
sleep 0.2; touch "$tmp/od/.keep.txt.tmp-$sleeper-0"; kill "$sleeper"; wait "$sleeper" 2>/dev/null
expect 0 "--out-dir after a kill" "$idbench" generate --variant mutex --threads 2 --count 10 --out-dir "$tmp/od"
[ -e "$tmp/od/.keep.txt.tmp-$sleeper-0" ] && { echo "FAIL: a dead writer's temp file was not swept"; failures=$((failures + 1)); }
[ "$(cat "$tmp/od/thread-0.txt" "$tmp/od/thread-1.txt" | wc -l)" -eq 10 ] || { echo "FAIL: --out-dir files"; failures=$((failures + 1)); }

# The duplicate count is extra copies, and the duplicated values are counted.
printf '5\n5\n5\n6\n6\n' >"$tmp/dups"
expect 1 "three extra copies of two values" "$idbench" check "$tmp/dups"
expect_text "3 duplicates (extra copies of 2 values)" "extra copies and values"
expect 0 "check --help says what a duplicate count means" "$idbench" check --help
expect_text "a value seen 3 times counts 2" "help explains extra copies"
# An empty file has no width; a directory is named; bad first lines explained.
: >"$tmp/empty"
"$idbench" generate --variant uuidv7 --count 3 --out "$tmp/u.txt" 2>/dev/null
sed -n 1p "$tmp/u.txt" >>"$tmp/u.txt"
expect 1 "check empty then UUIDs" "$idbench" check "$tmp/empty" "$tmp/u.txt"
expect 1 "check UUIDs then empty" "$idbench" check "$tmp/u.txt" "$tmp/empty"
expect 2 "check DIR" "$idbench" check "$tmp"
expect_text "is a directory" "directory named"
printf -- '-42\n' >"$tmp/neg"
expect 2 "negative first line" "$idbench" check "$tmp/neg"
expect_text "is negative" "negative explained"
printf '\xef\xbb\xbf1\n' >"$tmp/bom"
expect 2 "BOM first line" "$idbench" check "$tmp/bom"
expect_text "byte-order mark" "BOM explained"
# 32 decimal digits are ambiguous until the width is given.
printf '12345678901234567890123456789012\n' >"$tmp/d32"
expect 2 "32 decimal digits refused as ambiguous" "$idbench" check "$tmp/d32"
expect_text "32 decimal digits" "ambiguity named"
expect 0 "32 decimal digits with --id-bits 128" "$idbench" check --id-bits 128 "$tmp/d32"
expect 2 "decode of 32 decimal digits" "$idbench" decode 12345678901234567890123456789012
expect_text "32 decimal digits" "decode names the ambiguity"
expect 0 "decode --id-bits 128 of 32 decimal digits" "$idbench" decode --id-bits 128 12345678901234567890123456789012
expect_text "version=" "read as a UUID when told"
# The spare (sign) bit set is not an ID of the layout.
expect 0 "decode with the sign bit set" "$idbench" decode --layout twitter 9223372036854775809
expect_text "warning: .*bit 63" "spare bit warned"
# An unknown subcommand is named; a flag error is one line too.
expect 2 "unknown flag, one line" "$idbench" check --bogus "$tmp/mutex"
expect_one_line "unknown flag"
expect 2 "idbench bogus" "$idbench" bogus
expect_text "unknown command 'bogus'" "unknown subcommand named"
# A check above the memory budget partitions to disk and finds the same duplicates.
"$idbench" generate --variant cas --layout wide --count 300000 --format binary --out "$tmp/big.bin" 2>/dev/null
head -c 8 "$tmp/big.bin" >>"$tmp/big.bin"
expect 1 "check over --max-memory" "$idbench" check --format binary --max-memory 1000000 --json "$tmp/big.bin"
expect_text '"spilled_to_disk": true' "partitioned to disk"
expect_text '"line": 300001' "duplicate at the end located"
mkdir -p "$tmp/t/idbench-check-$sleeper-AbCdEf" && touch "$tmp/t/idbench-check-$sleeper-AbCdEf/p-0"
expect 0 "check after a killed check" env TMPDIR="$tmp/t" "$idbench" check "$tmp/mutex"
[ -e "$tmp/t/idbench-check-$sleeper-AbCdEf" ] && { echo "FAIL: a killed check's partitions were not swept"; failures=$((failures + 1)); }
# (A sanitizer build reserves terabytes of shadow address space, so it cannot run under ulimit -v.)
if ldd "$idbench" 2>/dev/null | grep -q -e libasan -e libtsan; then
  echo "skip: ulimit -v under a sanitizer build"
else
  expect 1 "check under ulimit -v 400000" sh -c "ulimit -v 400000; \"$idbench\" check --format binary \"$tmp/big.bin\""
fi

# A refusal is one line with the right words (each probe once said something wrong, or two
# lines). refused "WORDS" "NOT" command...: exit 2, one line on stderr, WORDS in it, NOT absent.
refused() {
  local words=$1 not=$2
  shift 2
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ $got -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$words" "$tmp/err" ||
     { [ -n "$not" ] && grep -qF -- "$not" "$tmp/err"; }; then
    echo "FAIL: $*: exit $got, want 2 and one line with '$words'${not:+ and without '$not'}"
    cat "$tmp/err"; failures=$((failures + 1))
  else
    echo "ok: refused: $(cat "$tmp/err")"; passes=$((passes + 1))
  fi
}
refused "--rows: -1 is negative; it must be a whole number ≥ 1" "at most" "$idbench" locality --variant cas --rows -1
refused "--pool-pages: -1 is negative" "" "$idbench" locality --variant cas --pool-pages -1
refused "--max-memory: -1 is negative" "" "$idbench" check --max-memory -1 "$tmp/mutex"
refused "/proc/version exists and cannot be replaced" "" \
  "$idbench" generate --variant cas --count 1 --out /proc/version
refused "non-ASCII" "38 characters" "$idbench" decode "01a22a9b-a04a-7634-98bb-503b7da130b$(printf '\357\274\221')"
refused "unit=1us is not" "unit=1u is" "$idbench" decode --layout ts=41,node=10,seq=12,unit=1us 1
refused "node=5+5+5 has 3 parts" "node=5+5 is" "$idbench" decode --layout ts=41,node=5+5+5,seq=12 1
refused "(/bin/true) exited at start with status 0; m0's log is empty" '\n' "$idbench" worker-ids --etcd-binary /bin/true --quiet
refused "'python-uuid4' is listed twice in 'python-uuid4,python-uuid4'" "unknown system" \
  "$idbench" real --system python-uuid4,python-uuid4
refused "is listed twice" "" "$idbench" real --system "$(printf 'a\nb,a\nb')"
# A list option naming a value twice would run the same cells twice, read as two results.
refused "--clients: '1' is listed twice" "" "$idbench" real --exec /bin/true --clients 1,8,1
refused "--flush: '1' is listed twice" "" "$idbench" real-chaos --scenario all --flush 1,1
# Every whole-number option takes the one check, with its bound named.
refused "--locality-rows: -1 is negative" "" "$idbench" real --exec /bin/true --locality-rows -1
refused "--batch: 0 is too small" "" "$idbench" generate --exec /bin/true --count 1 --batch 0
refused "--threads: 65 is too large; it must be at most 64" "" "$idbench" chaos --variant cas --threads 65

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
