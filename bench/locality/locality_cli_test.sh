#!/usr/bin/env bash
# locality_cli_test.sh IDBENCH — end-to-end checks of `idbench locality`: exit codes, one-line
# messages, and no half-written output, --matrix included.
set -u
idbench=$1
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../cli/expect.sh"  # expect, expect_text, $failures
expect_err() {  # expect_err "fixed text" "description": in the last stderr, which is one line
  if ! grep -qF -- "$1" "$tmp/err"; then
    echo "FAIL: $2: no '$1' on stderr"; cat "$tmp/err"; failures=$((failures + 1))
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: $2: stderr is not one line"; cat "$tmp/err"; failures=$((failures + 1))
  fi
}
loc() { "$idbench" locality "$@"; }

# These once aborted (vector::reserve, bad_alloc).
expect 2 "huge --rows" loc --synthetic sequential --rows 18446744073709551615
expect_err "--rows must be at most 100000000" "huge --rows names the bound"
expect 2 "--rows 1e10" loc --variant mutex --rows 10000000000
expect_err "--rows must be at most" "--rows 1e10 names the bound"
expect 2 "huge --rate" loc --variant mutex --rows 100 --rate 18446744073709551615
expect_err "--rate must be 1e-06 … 1e+07 IDs per simulated ms" "huge --rate names the bound"

# A rate below 1 ID per ms is a slower stream; outside its range, one line.
expect 0 "--rate 0.01 (10 IDs/s)" loc --variant uuidv1 --rows 200 --rate 0.01
expect 0 "--arrival poisson" loc --variant uuidv1 --rows 200 --rate 0.01 --arrival poisson
for bad in 0 -1 0.0000001 nan inf 1e300; do
  expect 2 "--rate $bad" loc --variant uuidv1 --rows 200 --rate "$bad"
  expect_err "--rate must be 1e-06 … 1e+07 IDs per simulated ms (0.01 = 10 IDs/s), not" \
    "--rate $bad names the range"
done
expect 2 "--rate abc" loc --variant uuidv1 --rows 200 --rate abc
expect_err "--rate" "--rate abc names the flag"
expect 2 "--rows / --rate beyond 100 years" loc --variant uuidv1 --rows 4000000 --rate 0.000001
expect_err "years of simulated time; at most 100" "the span's bound is named"

# "must be ≥ 1", not a 309-digit range.
for flag in --rows --pool-pages --validate-rows; do
  args=(--synthetic sequential)
  [ "$flag" = --validate-rows ] && args=(--matrix --out "$tmp/never.json")
  expect 2 "$flag 0" loc "${args[@]}" "$flag" 0
  expect_err "$flag: 0 is too small; it must be a whole number ≥ 1" "$flag 0 says ≥ 1"
done
[ ! -e "$tmp/never.json" ] || { echo "FAIL: refused matrix wrote its file"; failures=$((failures + 1)); }
expect 2 "--keys DIR" loc --keys "$tmp"
expect_err "is a directory" "--keys DIR says so"
printf '1\n2\nthree\n' >"$tmp/bad.txt"
# A keys file with no line end (a device, a binary file) is no file of keys: refused at the
# first line over 1 MiB, as `check` refuses one, instead of reading it all into memory.
SECONDS=0
expect 2 "--keys /dev/zero ends" timeout 20 "$idbench" locality --keys /dev/zero --rows 1000
expect_err "longer than 1 MiB" "--keys /dev/zero says why"
[ $SECONDS -lt 10 ] || { echo "FAIL: --keys /dev/zero took ${SECONDS} s"; failures=$((failures + 1)); }
expect 2 "bad keys line" loc --keys "$tmp/bad.txt"
expect_err "$tmp/bad.txt:3:" "bad keys line names file:line"

# `wide`'s epoch (2026-01-01) is after the default stream start.
expect 0 "cas on the wide layout" loc --variant cas --layout wide --rows 2000
expect 3 "a layout whose lifetime ended is a refusal" loc --variant cas --layout baidu --rows 2000
expect_err "lifetime ended" "the refusal says why"

# Payloads up to InnoDB's in-page record limit (8099 B beside a bigint); beyond it
# one line says why (off-page storage is not modelled).
expect 0 "--payload-bytes 1000" loc --synthetic sequential --rows 2000 --payload-bytes 1000
expect 0 "--payload-bytes at the limit" loc --synthetic sequential --rows 200 --payload-bytes 8099
expect 2 "--payload-bytes beyond the limit" loc --synthetic sequential --rows 200 --payload-bytes 8100
expect_err "off-page" "beyond the limit says what InnoDB does"
expect 2 "negative --payload-bytes" loc --synthetic sequential --rows 200 --payload-bytes -1
expect_err "--payload-bytes must be ≥ 0" "negative payload names the bound"

# Never exit 0 with an empty or partial dump.
for rows in 300 10000; do
  expect 2 "--dump-keys /dev/full ($rows keys)" loc --synthetic sequential --rows "$rows" \
    --dump-keys /dev/full
done
expect 2 "--dump-keys into a missing directory" loc --synthetic sequential --rows 300 \
  --dump-keys "$tmp/none/keys.txt"
echo keep >"$tmp/keys.txt"
expect 0 "--dump-keys" loc --synthetic sequential --rows 300 --dump-keys "$tmp/keys.txt"
[ "$(wc -l <"$tmp/keys.txt")" -eq 300 ] || { echo "FAIL: dump is not 300 keys"; failures=$((failures + 1)); }
if ls -A "$tmp" | grep -q tmp-; then echo "FAIL: temp file left"; failures=$((failures + 1)); fi

# The matrix: options, and a small complete run.
expect 2 "--matrix without --out" loc --matrix
expect 2 "--quick without --matrix" loc --synthetic sequential --quick
expect 2 "--matrix with --variant" loc --matrix --out "$tmp/m.json" --variant mutex
expect 0 "--matrix small" loc --matrix --out "$tmp/m.json" --rows 1000 --validate-rows 1000 \
  --no-validate
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] and d["matrix"]' \
  "$tmp/m.json" || { echo "FAIL: matrix JSON"; failures=$((failures + 1)); }

# An interrupted matrix keeps what it measured: a complete JSON of the runs so far, no temp file.
mkdir "$tmp/int"
"$idbench" locality --matrix --out "$tmp/int/m.json" --rows 1000000 --no-validate 2>/dev/null &
pid=$!
runs() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["matrix"]))' "$1" 2>/dev/null || echo 0; }
for _ in $(seq 600); do [ "$(runs "$tmp/int/m.json")" -ge 2 ] && break; sleep 0.1; done
kill -TERM "$pid"  # (a background job of a script ignores SIGINT)
wait "$pid"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["complete"] and len(d["matrix"]) >= 2 and "validation" not in d' \
  "$tmp/int/m.json" || { echo "FAIL: interrupted matrix JSON"; failures=$((failures + 1)); }
[ "$(ls -A "$tmp/int")" = m.json ] || { echo "FAIL: interrupted matrix left $(ls -A "$tmp/int")"; failures=$((failures + 1)); }
echo "ok: interrupted matrix"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
