#!/usr/bin/env bash
# real_cli_test.sh IDBENCH — end-to-end checks of `idbench real --exec` with sh fakes of the line
# protocol: the JSON, exit codes, one-line messages, a failing program keeps what was measured,
# SIGINT leaves no program behind and keeps the JSON ("complete": false); the harness's hop
# measured apart; with MariaDB installed, one MariaDB cell shows the system's own share and
# the direct client beside its end-to-end figure.
set -u
idbench=$1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null; failures=$((failures + 1)); }
expect() {  # expect CODE "description" command...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}
expect_err() {  # expect_err "fixed text" "description": the last stderr is that one line
  if ! grep -qF -- "$1" "$tmp/err"; then fail "$2: no '$1' on stderr"
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then fail "$2: stderr is not one line"; fi
}
json() {  # json FILE 'python expression over j' — prints it
  "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

cat >"$tmp/counter.sh" <<'SH'
i=0
while read n; do
  j=0
  while [ "$j" -lt "$n" ]; do i=$((i + 1)); echo "$i"; j=$((j + 1)); done
done
echo "fake: retries=1 deadlocks=0 failovers=0" >&2
SH
cat >"$tmp/dies.sh" <<'SH'
k=0
while read n; do
  k=$((k + 1))
  [ "$k" -gt 3 ] && exit 0
  j=0; while [ "$j" -lt "$n" ]; do echo "$k$j"; j=$((j + 1)); done
done
SH

r=(--seconds 0.2 --warmup 0.05 --locality-rows 0)
expect 0 "bench a program" "$idbench" real --exec "sh $tmp/counter.sh" --clients 1,2 \
  --requests 1,10 "${r[@]}" --out "$tmp/ok.json"
[ "$(json "$tmp/ok.json" 'j["complete"]')" = True ] || fail "complete run says complete"
[ "$(json "$tmp/ok.json" 'len(j["cells"])')" = 4 ] || fail "4 cells (2 client counts x 2 sizes)"
[ "$(json "$tmp/ok.json" '[(c["clients"], c["request_size"]) for c in j["cells"]]')" = \
  "[(1, 1), (1, 10), (2, 1), (2, 10)]" ] || fail "cells in plan order"
[ "$(json "$tmp/ok.json" 'all(c["ids_per_s"] > 0 and c["error"] is None for c in j["cells"])')" = True ] ||
  fail "every cell measured IDs"
[ "$(json "$tmp/ok.json" 'j["cells"][3]["adapter_counters"]["retries"]')" = 2 ] ||
  fail "the counter line, summed over 2 clients"
grep -q 'real: \[4/4\]' "$tmp/err" || fail "progress names i/N"
[ "$(json "$tmp/ok.json" '[(h["clients"], h["request_size"], h["error"]) for h in j["harness_hop"]]')" = \
  "[(1, 1, None), (1, 10, None), (2, 1, None), (2, 10, None)]" ] ||
  fail "the harness hop at every client count and request size"
[ "$(json "$tmp/ok.json" 'all(h["ids_per_s"] > 0 for h in j["harness_hop"])')" = True ] ||
  fail "the hop measured IDs"
grep -q 'real: harness hop, the null adapter (no system), 2 clients, 10 IDs/request' "$tmp/err" ||
  fail "progress names the hop"
[ "$(json "$tmp/ok.json" '[c["system_side"] for c in j["cells"]]')" = "[None, None, None, None]" ] ||
  fail "a program that times nothing has no system side"
grep -q 'left)' "$tmp/err" || fail "progress says the time left"

# --quiet: nothing on stderr; the adapters' summary lines are still read into the JSON.
expect 0 "bench a program --quiet" "$idbench" real --exec "sh $tmp/counter.sh" --clients 1 \
  --requests 1 "${r[@]}" --quiet --out "$tmp/quiet.json"
[ -s "$tmp/err" ] && fail "--quiet wrote on stderr"
[ "$(json "$tmp/quiet.json" 'j["cells"][0]["adapter_counters"]["retries"]')" = 1 ] ||
  fail "--quiet keeps the adapter's counters"

# The locality pass: the program's IDs from 1 client (--clients 1), through the InnoDB model.
expect 0 "the locality of a program's IDs" "$idbench" real --exec "sh $tmp/counter.sh" --clients 1 \
  --requests 1 --seconds 0.1 --warmup 0 --locality-rows 2000 --out "$tmp/loc.json"
[ "$(json "$tmp/loc.json" '[(l["clients"], l["rows"]) for l in j["locality"]]')" = "[(1, 2000)]" ] ||
  fail "one locality pass of 2000 IDs from 1 client"
[ "$(json "$tmp/loc.json" 'j["locality"][0]["avg_leaf_fill"] > 0.5 and j["locality"][0]["leaf_pages"] >= 2')" = True ] ||
  fail "the pass has leaf pages and their fill"
[ "$(json "$tmp/ok.json" 'j["locality"]')" = "[]" ] || fail "--locality-rows 0 runs no pass"

expect 2 "a program that fails" "$idbench" real --exec "sh $tmp/dies.sh" --clients 1 \
  --requests 1,5 --seconds 2 --warmup 0 --out "$tmp/dies.json"
[ "$(json "$tmp/dies.json" 'len(j["cells"]) == 2 and j["errors"] == 2')" = True ] ||
  fail "both cells ran and recorded their error"
[ "$(json "$tmp/dies.json" 'j["cells"][0]["requests"]')" = 3 ] || fail "the 3 good answers kept"
json "$tmp/dies.json" 'j["cells"][0]["error"]' | grep -q dies.sh || fail "the error names the program"

expect 2 "no system or program" "$idbench" real --out "$tmp/x.json"
expect_err "needs --system" "says what is missing"
expect 2 "unknown system" "$idbench" real --system bogus
expect_err "unknown system 'bogus'" "names the word"
expect 2 "an unknown system in a list" "$idbench" real --system quick,bogus --out "$tmp/x.json"
expect_err "unknown system 'bogus'" "names the word in the list"
expect 2 "an empty word in a list" "$idbench" real --system quick, --out "$tmp/x.json"
expect_err "unknown system ''" "names the empty word"
expect 2 "--clients 0" "$idbench" real --exec "sh $tmp/counter.sh" --clients 0
expect 2 "--requests 0" "$idbench" real --exec "sh $tmp/counter.sh" --requests 1,0
expect 2 "--seconds 0" "$idbench" real --exec "sh $tmp/counter.sh" --seconds 0
expect 2 "unbalanced quote" "$idbench" real --exec "sh '$tmp/counter.sh"
expect 2 "--system with --exec" "$idbench" real --system quick --exec "sh $tmp/counter.sh"
[ ! -e "$tmp/x.json" ] || fail "a refused run wrote its file"

# A MariaDB system: beside the end-to-end figure, the system's own share (timed in the adapter)
# and the direct client's.
if command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; then
  expect 0 "a MariaDB cell with --direct" "$idbench" real --system mariadb-auto-increment \
    --flush 2 --clients 2 --requests 1 --seconds 0.3 --warmup 0.1 --locality-rows 0 --direct \
    --out "$tmp/maria.json"
  [ "$(json "$tmp/maria.json" 'len(j["cells"]) == 1 and j["config"]["direct"]')" = True ] ||
    fail "one cell, --direct in the config"
  [ "$(json "$tmp/maria.json" 'j["cells"][0]["system_side"]["ids_per_s"] > 0 and j["cells"][0]["system_side"]["latency_ns"]["p99"] > 0')" = True ] ||
    fail "the system's own share measured"
  [ "$(json "$tmp/maria.json" 'j["cells"][0]["direct"]["ids_per_s"] > 0 and j["cells"][0]["direct"]["error"] is None')" = True ] ||
    fail "the direct client measured"
  grep -q "the system's own (timed inside the adapter): " "$tmp/err" || fail "text shows the own share"
  grep -q "direct client: " "$tmp/err" || fail "text shows the direct client"
else
  echo "skipped: the MariaDB cell (mariadbd is not installed)"
fi

# SIGINT in the middle of the second cell: exit 130, the first cell kept, no program left.
# (3 s cells: a loaded machine may take a while to see the first one written.)
"$idbench" real --exec "sh $tmp/counter.sh" --clients 2 --requests 1,2 --seconds 3 \
  --warmup 0 --locality-rows 0 --out "$tmp/int.json" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do
  [ -e "$tmp/int.json" ] && [ "$(json "$tmp/int.json" 'len(j["cells"])' 2>/dev/null)" = 1 ] && break
  sleep 0.05
done
sleep 0.3
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -eq 130 ] && echo "ok: SIGINT exits 130" || fail "SIGINT: exit $status, want 130"
[ "$(json "$tmp/int.json" '(j["complete"], len(j["cells"]))')" = "(False, 1)" ] ||
  fail "interrupted JSON keeps the measured cell, complete false"
sleep 0.2
left=$(pgrep -f "$tmp/counter.sh")
if [ -n "$left" ]; then fail "a program outlived SIGINT: $left"; kill -9 $left; fi
ls "$tmp" | grep -q '\.tmp-' && fail "a temp file was left beside --out"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all real CLI checks passed"
