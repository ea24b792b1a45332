#!/usr/bin/env bash
# adapters_test.sh — the shipped adapters speak the exec line protocol (docs/exec-protocol.md, "Adapters"):
# a request "N\n" gets N well-formed IDs of the adapter's form, EOF exits 0, bad usage exits 2
# with one line, the launcher execs (no wrapper remains), the Snowflake adapter carries
# IDBENCH_NODE_ID in its node field.
#   adapters_test.sh IDBENCH launcher|python|node
# Exit 77 (ctest: skipped) for `node` when adapters/node/node_modules is absent (./run.sh
# installs it) or for `python` without /usr/bin/python3.
set -u
idbench=$1
part=$2
here=$(cd "$(dirname "$0")" && pwd)
adapter=$here/idbench-adapter
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

uuid_re='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
# expect_ids RUNTIME NAME REGEX: "3\n1\n" gives 4 lines of REGEX, exit 0, then 4 x 1000 IDs
# with no duplicate (4000 < 4096: the Snowflake adapter's 12-bit increment cannot wrap, see docs/exec-protocol.md).
expect_ids() {
  local runtime=$1 name=$2 re=$3 rc
  printf '3\n1\n' | "$adapter" "$runtime" "$name" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 0 ]; then fail "$runtime $name: exit $rc, want 0"; return; fi
  if [ "$(wc -l <"$tmp/out")" -ne 4 ] || [ "$(grep -Ec "$re" "$tmp/out")" -ne 4 ]; then
    fail "$runtime $name: want 4 lines matching $re, got:"; cat "$tmp/out"; return
  fi
  ok "$runtime $name answers 3 then 1 with 4 IDs of its form"
  printf '3\n1\n' | IDBENCH_SYSTEM_TIMES="$tmp/times" "$adapter" "$runtime" "$name" >/dev/null 2>"$tmp/err"
  [ "$(grep -Ec '^[1-9][0-9]*$' "$tmp/times" 2>/dev/null)" = 2 ] && [ "$(wc -l <"$tmp/times")" = 2 ] &&
    ok "$runtime $name: IDBENCH_SYSTEM_TIMES gets one time in ns per request" ||
    fail "$runtime $name: IDBENCH_SYSTEM_TIMES: want 2 lines of ns, got: $(cat "$tmp/times" 2>&1)"
  rm -f "$tmp/times"
  printf '1000\n%.0s' $(seq 4) | "$adapter" "$runtime" "$name" >"$tmp/many" 2>"$tmp/err" &&
    "$idbench" check "$tmp/many" >"$tmp/check" 2>>"$tmp/err" &&
    grep -q '^4000 IDs in 1 stream: 0 duplicates' "$tmp/check" &&
    ok "$runtime $name: 4 requests of 1000 give 4000 distinct IDs" ||
    { fail "$runtime $name: 4 x 1000 IDs not all distinct"; cat "$tmp/check"; }
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
  printf "$input" | "$adapter" "$runtime" "$name" >"$tmp/out" 2>"$tmp/err"
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
    expect_ids python uuid1 '^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
    expect_ids python uuid4 '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
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
    expect_ids node uuid-v1 '^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
    expect_ids node uuid-v6 '^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
    expect_ids node uuid-v7 '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
    expect_ids node ulid "$uuid_re"
    expect_ids node ksuid "$uuid_re"
    expect_ids node snowflake '^[1-9][0-9]{0,19}$'
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
    ulid=$(printf '1\n' | "$adapter" node ulid | tr -d '-')
    ulid_ms=$((16#${ulid:0:12})) now_ms=$(($(date +%s%3N)))
    [ $((now_ms - ulid_ms)) -ge 0 ] && [ $((now_ms - ulid_ms)) -lt 60000 ] &&
      ok "node ulid: top 48 bits are the Unix ms" || fail "node ulid: top 48 bits $ulid_ms, now $now_ms"
    expect_execs node uuid-v7 node
    # What docs/exec-protocol.md "Adapters" says of the packages' own code (wrap, overflow, clock back).
    node "$here/node/facts_test.js" >"$tmp/out" 2>"$tmp/err" && ok "node: the pinned packages' facts hold" ||
      { fail "node: a documented fact about the pinned packages no longer holds"; cat "$tmp/out"; }
    ;;
  *)
    echo "usage: adapters_test.sh IDBENCH launcher|python|node" >&2
    exit 2
    ;;
esac
echo "$failures failures"
[ "$failures" -eq 0 ]
