#!/usr/bin/env bash
# adapters_test.sh — the shipped adapters speak the exec line protocol (docs/exec-protocol.md, "Adapters"):
# a request "N\n" gets N well-formed IDs of the adapter's form, EOF exits 0, bad usage exits 2
# with one line, the launcher execs (no wrapper remains), the Snowflake adapters carry
# IDBENCH_NODE_ID in their node fields, check finds the npm Snowflake packages' duplicates, and
# chaos sees two of them under a step back (node-chaos); each Go scheme through `idbench
# generate --exec`, and a clock fault that never reaches a Go program unless ptrace injects it.
#   adapters_test.sh IDBENCH launcher|python|node|node-chaos
#   adapters_test.sh IDBENCH go|go-chaos GO_ADAPTER [MISSING_PACKAGES]
# Exit 77 (ctest: skipped) for `node` and `node-chaos` when adapters/node/node_modules is
# absent (./run.sh installs it) or for `python` without /usr/bin/python3. The Go parts never skip: a Go adapter
# that was not built (its Debian packages missing at configure time) fails, naming them.
set -u
idbench=$1
part=$2
go_adapter=${3:-}
go_missing=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
adapter=$here/idbench-adapter
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

uuid_re='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
# uuid_version_re V: a UUID of version V and the RFC variant.
uuid_version_re() { echo "^[0-9a-f]{8}-[0-9a-f]{4}-$1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\$"; }

# run_adapter RUNTIME NAME: the adapter as idbench would start it (Go: the compiled program
# itself, no launcher; the others: through the launcher).
run_adapter() {
  if [ "$1" = go ]; then "$go_adapter" "$2"; else "$adapter" "$1" "$2"; fi
}
# expect_ids RUNTIME NAME REGEX: "3\n1\n" gives 4 lines of REGEX, exit 0, then 4 x 1000 IDs
# with no duplicate (4000 < 4096: the Snowflake adapter's 12-bit increment cannot wrap, see docs/exec-protocol.md).
expect_ids() {
  local runtime=$1 name=$2 re=$3 rc
  printf '3\n1\n' | run_adapter "$runtime" "$name" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 0 ]; then fail "$runtime $name: exit $rc, want 0"; return; fi
  if [ "$(wc -l <"$tmp/out")" -ne 4 ] || [ "$(grep -Ec "$re" "$tmp/out")" -ne 4 ]; then
    fail "$runtime $name: want 4 lines matching $re, got:"; cat "$tmp/out"; return
  fi
  ok "$runtime $name answers 3 then 1 with 4 IDs of its form"
  printf '3\n1\n' | IDBENCH_SYSTEM_TIMES="$tmp/times" run_adapter "$runtime" "$name" >/dev/null 2>"$tmp/err"
  [ "$(grep -Ec '^[1-9][0-9]*$' "$tmp/times" 2>/dev/null)" = 2 ] && [ "$(wc -l <"$tmp/times")" = 2 ] &&
    ok "$runtime $name: IDBENCH_SYSTEM_TIMES gets one time in ns per request" ||
    fail "$runtime $name: IDBENCH_SYSTEM_TIMES: want 2 lines of ns, got: $(cat "$tmp/times" 2>&1)"
  rm -f "$tmp/times"
  printf '1000\n%.0s' $(seq 4) | run_adapter "$runtime" "$name" >"$tmp/many" 2>"$tmp/err" &&
    "$idbench" check "$tmp/many" >"$tmp/check" 2>>"$tmp/err" &&
    grep -q '^4000 IDs in 1 stream: 0 duplicates' "$tmp/check" &&
    ok "$runtime $name: 4 requests of 1000 give 4000 distinct IDs" ||
    { fail "$runtime $name: 4 x 1000 IDs not all distinct"; cat "$tmp/check"; }
}

# The npm Snowflake packages' layouts (docs/exec-protocol.md, "Adapters"): 42 bits of Unix ms.
layout_snowflake_id=spare=0,ts=42,node=10,seq=12,epoch=0
layout_nodejs_snowflake=spare=0,ts=42,node=12,seq=10,epoch=0
layout_flake_idgen=spare=0,ts=42,node=5+5,seq=12,epoch=0

# expect_node RUNTIME NAME LAYOUT NODE_ID FIELD: with IDBENCH_NODE_ID=NODE_ID the adapter's ID
# decodes by LAYOUT to node FIELD and to the time of now.
expect_node() {
  local runtime=$1 name=$2 layout=$3 node=$4 want=$5 id
  id=$(printf '1\n' | IDBENCH_NODE_ID=$node run_adapter "$runtime" "$name" 2>"$tmp/err")
  "$idbench" decode --json --layout "$layout" "$id" >"$tmp/decoded" 2>>"$tmp/err" &&
    grep -q "\"node\":$want," "$tmp/decoded" &&
    ok "$runtime $name: IDBENCH_NODE_ID=$node decodes as node $want ($layout)" ||
    { fail "$runtime $name: IDBENCH_NODE_ID=$node is not node $want in $layout"; cat "$tmp/decoded"; }
  expect_now "$runtime $name" "$(grep -o '"unix_ms":[0-9]*' "$tmp/decoded" | cut -d: -f2)"
}

# expect_duplicates NAME LAYOUT FAKETIME THREADS COUNT yes|no: `idbench generate --exec` runs
# THREADS instances of node NAME under libfaketime's FAKETIME (the faketime program) for COUNT
# IDs; `idbench check` finds duplicates (yes, exit 1) or none (no, exit 0).
expect_duplicates() {
  local name=$1 layout=$2 clock=$3 threads=$4 count=$5 want=$6 rc
  rm -rf "$tmp/gen" && mkdir "$tmp/gen"
  "$idbench" generate --exec "faketime -m -f '$clock' $adapter node $name" --id-time layout \
    --layout "$layout" --threads "$threads" --count "$count" --out-dir "$tmp/gen" \
    >/dev/null 2>"$tmp/err" || { fail "node $name under FAKETIME '$clock': generate failed"; return; }
  "$idbench" check "$tmp/gen"/thread-*.txt >"$tmp/check" 2>>"$tmp/err"
  rc=$?
  if [ "$want" = yes ] && [ "$rc" -eq 1 ] && grep -Eq ' [1-9][0-9]* duplicates?\b' "$tmp/check"; then
    ok "node $name, $threads instance(s), FAKETIME '$clock': check finds $(grep -Eo '[0-9]+ duplicates?' "$tmp/check" | head -1)"
  elif [ "$want" = no ] && [ "$rc" -eq 0 ] && grep -q ' 0 duplicates' "$tmp/check"; then
    ok "node $name, $threads instance(s), FAKETIME '$clock': no duplicate"
  else
    fail "node $name, $threads instance(s), FAKETIME '$clock': check exit $rc, want duplicates: $want"
    cat "$tmp/check"
  fi
}

# expect_chaos WHAT SCALE INJECTOR VERDICT APPLIED RC CHAOS_ARGS...: `idbench chaos CHAOS_ARGS`
# under ntp-step-back at SCALE of its length, judged by its --json: the verdict's first word,
# how many of the 6 steps its IDs showed, and the exit.
expect_chaos() {
  local what=$1 scale=$2 injector=$3 verdict=$4 applied=$5 want_rc=$6 rc
  shift 6
  "$idbench" chaos "$@" --scenario ntp-step-back --time-scale "$scale" --rate 20000 --batch 100 \
    --clock-injector "$injector" --quiet --json >"$tmp/out" 2>"$tmp/err"
  rc=$?
  /usr/bin/python3 - "$tmp/out" "$verdict" "$applied" <<'PY' >"$tmp/verdict" 2>&1
import json, sys
run = json.load(open(sys.argv[1]))
outcomes = [f["outcome"] for f in run["fault_check"]["faults"]]
seen = outcomes.count("applied")
print(run["fault_verdict"]["verdict"], run["duplicates"], "duplicates", outcomes)
sys.exit(0 if run["fault_verdict"]["verdict"] == sys.argv[2] and len(outcomes) == 6
         and seen == int(sys.argv[3]) else 1)
PY
  [ $? -eq 0 ] && [ "$rc" -eq "$want_rc" ] &&
    ok "$what under ntp-step-back, $injector: $(cat "$tmp/verdict"), exit $rc" ||
    fail "$what under ntp-step-back, $injector: exit $rc, want $want_rc, $verdict ($applied of 6 steps); got: $(cat "$tmp/verdict")"
}

# expect_exit CODE WHAT command...: exit CODE and exactly one line on stderr.
expect_exit() {
  local want=$1 what=$2 rc
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  if [ "$rc" -ne "$want" ]; then fail "$what: exit $rc, want $want"; return; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then fail "$what: want one line on stderr"; return; fi
  ok "$what: exit $want, one line"
}

# expect_request_exit RUNTIME NAME INPUT CODE WHAT: INPUT on stdin gives exit CODE.
expect_request_exit() {
  local runtime=$1 name=$2 input=$3 want=$4 what=$5 rc
  printf "$input" | run_adapter "$runtime" "$name" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq "$want" ] && ok "$runtime $name: $what: exit $want" ||
    fail "$runtime $name: $what: exit $rc, want $want"
}

# expect_execs RUNTIME NAME COMM: the launcher becomes the runtime (no sh left between idbench
# and the generator), and EOF on its stdin makes it exit 0.
expect_execs() {
  local runtime=$1 name=$2 want=$3 pid comm="" i rc
  rm -f "$tmp/fifo" && mkfifo "$tmp/fifo"
  "$adapter" "$runtime" "$name" <"$tmp/fifo" >/dev/null 2>"$tmp/err" &
  pid=$!
  exec 3>"$tmp/fifo"
  for i in $(seq 100); do
    comm=$(cat "/proc/$pid/comm" 2>/dev/null)
    [ "$comm" = "$want" ] && break
    sleep 0.05
  done
  exec 3>&-
  wait "$pid"
  rc=$?
  [ "$comm" = "$want" ] && ok "$runtime $name: the launcher execs $want" ||
    fail "$runtime $name: the process is '$comm', want $want (exec)"
  [ "$rc" -eq 0 ] && ok "$runtime $name: EOF on stdin exits 0" ||
    fail "$runtime $name: EOF on stdin: exit $rc, want 0"
}

# A Go part without its program fails, naming what was missing: never a silent skip.
require_go() {
  [ -n "$go_adapter" ] && [ -x "$go_adapter" ] && return 0
  echo "FAIL: the Go adapter '$go_adapter' was not built${go_missing:+ (Debian packages missing when CMake configured: $go_missing)}: ./run.sh test installs golang-go and the Go -dev packages"
  exit 1
}

# expect_now WHAT MS: MS, the Unix ms an ID carries, is within the minute before now.
expect_now() {
  local what=$1 ms=$2 now_ms
  now_ms=$(date +%s%3N)
  [ -n "$ms" ] && [ $((now_ms - ms)) -ge 0 ] && [ $((now_ms - ms)) -lt 60000 ] &&
    ok "$what: its IDs carry the time of now" || fail "$what: its IDs carry '$ms' ms, now is $now_ms"
}

# go_first_hex NAME [ENV...]: the 32 hex digits of the first ID of one Go instance.
go_first_hex() {
  local name=$1
  shift
  printf '1\n' | env "$@" "$go_adapter" "$name" 2>"$tmp/err" | tr -d -- '-'
}

# expect_generate NAME ID_TIME: `idbench generate --exec` runs two instances (node ids 0 and 1)
# for 4000 IDs: all distinct, within and across them, all UUID text (128-bit); described as
# 64-bit, the same program is refused as mixing widths (exit 2).
expect_generate() {
  local name=$1 id_time=$2 rc
  rm -rf "$tmp/gen" "$tmp/check" && mkdir "$tmp/gen"
  "$idbench" generate --exec "$go_adapter $name" --id-time "$id_time" --id-bits 128 --threads 2 \
    --count 4000 --out-dir "$tmp/gen" >/dev/null 2>"$tmp/err" &&
    "$idbench" check "$tmp/gen/thread-0.txt" "$tmp/gen/thread-1.txt" >"$tmp/check" 2>>"$tmp/err" &&
    grep -q '^4000 IDs in 2 streams: 0 duplicates' "$tmp/check" &&
    [ "$(cat "$tmp/gen/thread-0.txt" "$tmp/gen/thread-1.txt" | grep -Evc "$uuid_re")" = 0 ] &&
    ok "go $name: generate --exec, 2 instances: 4000 distinct 128-bit IDs" ||
    { fail "go $name: generate --exec did not give 4000 distinct IDs of UUID text"; cat "$tmp/check"; }
  "$idbench" generate --exec "$go_adapter $name" --id-bits 64 --count 10 --out "$tmp/gen/64" \
    >/dev/null 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] && grep -q 'mixes widths' "$tmp/err" && ok "go $name: described as 64-bit, refused" ||
    fail "go $name: --id-bits 64: exit $rc, want 2 (mixes widths)"
}

case "$part" in
  launcher)
    expect_exit 2 "no arguments" "$adapter"
    expect_exit 2 "unknown runtime" "$adapter" ruby uuid4
    expect_exit 2 "unknown python generator" "$adapter" python uuid7
    expect_exit 2 "unknown node generator" "$adapter" node uuid-v4
    # Without the pinned modules: one line naming ./run.sh, exit 4 (a missing tool).
    mkdir -p "$tmp/copy/node" && cp "$adapter" "$tmp/copy/"
    expect_exit 4 "node_modules missing" "$tmp/copy/idbench-adapter" node uuid-v7
    grep -q 'run ./run.sh' "$tmp/err" || fail "the missing node_modules line does not say: run ./run.sh"
    ;;
  python)
    [ -x /usr/bin/python3 ] || { echo "skipped: /usr/bin/python3 is missing"; exit 77; }
    expect_ids python uuid1 "$(uuid_version_re 1)"
    expect_ids python uuid4 "$(uuid_version_re 4)"
    expect_request_exit python uuid4 '' 0 "EOF at once"
    expect_request_exit python uuid4 '0\n' 2 "a request of 0"
    expect_request_exit python uuid4 '1000001\n' 2 "a request above 1000000"
    expect_request_exit python uuid4 'x\n' 2 "a request that is no number"
    expect_exit 2 "python adapter run directly with a bad name" /usr/bin/python3 "$here/python/adapter.py" uuid9
    expect_execs python uuid1 python3
    ;;
  node)
    [ -d "$here/node/node_modules" ] && command -v node >/dev/null ||
      { echo "skipped: adapters/node/node_modules or node is missing (./run.sh installs them)"; exit 77; }
    command -v faketime >/dev/null ||
      { echo "FAIL: the faketime program is missing (./run.sh installs the Debian package faketime)"; exit 1; }
    expect_ids node uuid-v1 "$(uuid_version_re 1)"
    expect_ids node uuid-v6 "$(uuid_version_re 6)"
    expect_ids node uuid-v7 "$(uuid_version_re 7)"
    expect_ids node ulid "$uuid_re"
    expect_ids node ksuid "$uuid_re"
    for name in snowflake snowflake-defaults snowflake-id nodejs-snowflake flake-idgen; do
      expect_ids node "$name" '^[1-9][0-9]{0,19}$'
    done
    expect_request_exit node uuid-v7 '' 0 "EOF at once"
    expect_request_exit node uuid-v7 '0\n' 2 "a request of 0"
    expect_request_exit node uuid-v7 '1000001\n' 2 "a request above 1000000"
    expect_request_exit node ulid '12a\n' 2 "a request that is no number"
    # The Snowflake adapter's node field (layout discord: 5 worker + 5 process bits) is
    # IDBENCH_NODE_ID; the ULID's top 48 bits are the Unix ms of now.
    id=$(printf '1\n' | IDBENCH_NODE_ID=37 "$adapter" node snowflake 2>"$tmp/err")
    "$idbench" decode --json --layout discord "$id" >"$tmp/decoded" 2>>"$tmp/err" &&
      grep -q '"node":37,' "$tmp/decoded" && ok "node snowflake: IDBENCH_NODE_ID=37 decodes as node 37" ||
      { fail "node snowflake: IDBENCH_NODE_ID=37 not in its node field"; cat "$tmp/decoded"; }
    IDBENCH_NODE_ID=1024 expect_exit 2 "node snowflake: IDBENCH_NODE_ID beyond 10 bits" "$adapter" node snowflake
    # Each package's node field, by its layout: snowflake-id's mid is the node id + 1 (it makes
    # a mid of 0 into 1); snowflake-defaults keeps the package's worker 0, process 1.
    expect_node node snowflake-id "$layout_snowflake_id" 37 38
    expect_node node nodejs-snowflake "$layout_nodejs_snowflake" 37 37
    expect_node node flake-idgen "$layout_flake_idgen" 37 37
    expect_node node snowflake-defaults discord 37 1
    IDBENCH_NODE_ID=1022 expect_exit 2 "node snowflake-id: IDBENCH_NODE_ID beyond mid 1022" "$adapter" node snowflake-id
    IDBENCH_NODE_ID=4096 expect_exit 2 "node nodejs-snowflake: IDBENCH_NODE_ID beyond 12 bits" "$adapter" node nodejs-snowflake
    IDBENCH_NODE_ID=1024 expect_exit 2 "node flake-idgen: IDBENCH_NODE_ID beyond 10 bits" "$adapter" node flake-idgen
    printf '5\n' | "$adapter" node flake-idgen >/dev/null 2>"$tmp/err" &&
      [ "$(cat "$tmp/err")" = "idbench-node-adapter: refusals=0" ] &&
      ok "node flake-idgen: its refusals counted at EOF" || fail "node flake-idgen: no refusals=N line at EOF"
    # The defects idbench must see, planted by the clock: under a clock slowed 1000x (one ms
    # lasts a second) snowflake-id issues more than 4096 IDs in a ms, and its 4097th repeats the
    # ms's first; flake-idgen, on the same layout, waits. Under a clock that stands still, two
    # default @sapphire/snowflake processes issue the same IDs; two with node ids do not.
    # 8200 IDs: the first (partial) ms may hold up to 4096, the next whole one then overflows.
    expect_duplicates snowflake-id "$layout_snowflake_id" "+0 x0.001" 1 8200 yes
    expect_duplicates flake-idgen "$layout_flake_idgen" "+0 x0.001" 1 8200 no
    expect_duplicates snowflake-defaults discord "@2026-06-01 00:00:00 x0.00001" 2 2000 yes
    expect_duplicates snowflake discord "@2026-06-01 00:00:00 x0.00001" 2 2000 no
    ulid=$(printf '1\n' | "$adapter" node ulid | tr -d '-')
    ulid_ms=$((16#${ulid:0:12})) now_ms=$(($(date +%s%3N)))
    [ $((now_ms - ulid_ms)) -ge 0 ] && [ $((now_ms - ulid_ms)) -lt 60000 ] &&
      ok "node ulid: top 48 bits are the Unix ms" || fail "node ulid: top 48 bits $ulid_ms, now $now_ms"
    expect_execs node uuid-v7 node
    # What docs/exec-protocol.md "Adapters" says of the packages' own code (wrap, overflow, clock back).
    node "$here/node/facts_test.js" >"$tmp/out" 2>"$tmp/err" && ok "node: the pinned packages' facts hold" ||
      { fail "node: a documented fact about the pinned packages no longer holds"; cat "$tmp/out"; }
    ;;
  go)
    require_go
    expect_ids go google-uuid-v1 "$(uuid_version_re 1)"
    expect_ids go gofrs-uuid-v1 "$(uuid_version_re 1)"
    expect_ids go gofrs-uuid-v6 "$(uuid_version_re 6)"
    expect_ids go gofrs-uuid-v7 "$(uuid_version_re 7)"
    expect_ids go oklog-ulid "$uuid_re"
    expect_ids go segmentio-ksuid "$uuid_re"
    # xid's 96 bits, then 32 zero bits: nothing truncated, nothing invented.
    expect_ids go rs-xid '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}0{8}$'
    for name in google-uuid-v1 gofrs-uuid-v1 gofrs-uuid-v6 gofrs-uuid-v7; do
      expect_generate "$name" uuid
    done
    expect_generate oklog-ulid ulid
    expect_generate segmentio-ksuid ksuid
    expect_generate rs-xid xid
    expect_request_exit go rs-xid '' 0 "EOF at once"
    expect_request_exit go gofrs-uuid-v7 '0\n' 2 "a request of 0"
    expect_request_exit go oklog-ulid '1000001\n' 2 "a request above 1000000"
    expect_request_exit go google-uuid-v1 '12a\n' 2 "a request that is no number"
    expect_exit 2 "go adapter with no name" "$go_adapter"
    expect_exit 2 "go adapter with an unknown name" "$go_adapter" uuid-v4
    expect_exit 2 "go adapter with two names" "$go_adapter" rs-xid oklog-ulid
    # The time each scheme carries: UUIDs as idbench decodes them, the others by their layout.
    for name in google-uuid-v1 gofrs-uuid-v1 gofrs-uuid-v6 gofrs-uuid-v7; do
      id=$(printf '1\n' | "$go_adapter" "$name" 2>"$tmp/err")
      expect_now "go $name" "$("$idbench" decode --json "$id" | grep -o '"unix_ms":[0-9]*' | cut -d: -f2)"
    done
    hex=$(go_first_hex oklog-ulid)
    expect_now "go oklog-ulid (top 48 bits: Unix ms)" "$((16#${hex:0:12}))"
    hex=$(go_first_hex segmentio-ksuid)
    expect_now "go segmentio-ksuid (top 32 bits: s since 1400000000)" "$(((16#${hex:0:8} + 1400000000) * 1000))"
    hex=$(go_first_hex rs-xid)
    expect_now "go rs-xid (top 32 bits: Unix s)" "$((16#${hex:0:8} * 1000))"
    # No Go library takes a node id: xid's 3 machine bytes are the host's whatever
    # IDBENCH_NODE_ID says, and its 2 process bytes differ between two instances.
    a=$(go_first_hex rs-xid IDBENCH_NODE_ID=1) b=$(go_first_hex rs-xid IDBENCH_NODE_ID=2)
    [ "${a:8:6}" = "${b:8:6}" ] && [ "${a:14:4}" != "${b:14:4}" ] &&
      ok "go rs-xid: the machine bytes are the host's, not IDBENCH_NODE_ID; the pid bytes differ" ||
      fail "go rs-xid: node ids 1 and 2 gave $a and $b"
    ;;
  go-chaos)
    require_go
    # Go reads the wall clock through the vDSO, not libc: libfaketime never reaches it, and the
    # verdict is "fault not applied", never kept. The ptrace injector patches the vDSO of every
    # process in the node's tree: all 6 steps reach it, and its clock sequence keeps it unique.
    expect_chaos "go google-uuid-v1" 0.3 libfaketime "fault not applied" 0 1 \
      --exec "$go_adapter google-uuid-v1" --id-time uuid
    expect_chaos "go google-uuid-v1" 0.3 ptrace kept 6 0 --exec "$go_adapter google-uuid-v1" --id-time uuid
    ;;
  node-chaos)
    [ -d "$here/node/node_modules" ] && command -v node >/dev/null ||
      { echo "skipped: adapters/node/node_modules or node is missing (./run.sh installs them)"; exit 77; }
    # Node reads the wall clock through libc, so libfaketime reaches it: every step shows.
    # nodejs-snowflake resets its sequence on an earlier ms and issues it again; flake-idgen
    # refuses until the clock passes its last ms (the adapter asks again: a wait), so only its
    # waits show the steps: at full length, so that each step finds it issuing.
    expect_chaos "node nodejs-snowflake" 0.3 libfaketime BROKEN 6 1 \
      --exec "$adapter node nodejs-snowflake" --id-time layout --layout "$layout_nodejs_snowflake"
    expect_chaos "node flake-idgen" 1 libfaketime kept 6 0 \
      --exec "$adapter node flake-idgen" --id-time layout --layout "$layout_flake_idgen"
    ;;
  *)
    echo "usage: adapters_test.sh IDBENCH launcher|python|node|node-chaos | go|go-chaos GO_ADAPTER [MISSING]" >&2
    exit 2
    ;;
esac
echo "$failures failures"
[ "$failures" -eq 0 ]
