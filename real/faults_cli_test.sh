#!/bin/sh
# faults_cli_test.sh — `idbench real-chaos` from the outside: --list, bad input (exit 2), the
# clock injector in the JSON, a ptrace injector that refuses the server (exit 3, one line, never
# a fall back to libfaketime), and SIGINT in the middle of a scenario (exit 130, no server,
# adapter or directory left; the fixture cleanup faults_left_nothing.sh checks the processes
# and directories).
#
#   faults_cli_test.sh IDBENCH
# Exit 77 (ctest: skipped) for the SIGINT part when MariaDB is not installed.
set -u
idbench=$1
failed=0
fail() { echo "FAIL: $*"; failed=1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/faults-cli-XXXXXX")
tmp=${TMPDIR:-/tmp}

"$idbench" real-chaos --list >"$work/list" 2>&1 || fail "--list exited $?"
grep -q "ticket-restore" "$work/list" || fail "--list does not name ticket-restore"

"$idbench" real-chaos --scenario no-such-scenario >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 2 ] || fail "an unknown scenario exited $status, not 2"
[ "$(wc -l <"$work/err")" -eq 1 ] || { fail "an unknown scenario: not one line on stderr"; cat "$work/err"; }
# A list is checked whole before anything runs: one unknown name in it is the same exit 2.
"$idbench" real-chaos --scenario ticket-restore,no-such-scenario --out "$work/list.json" >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 2 ] || fail "a list with an unknown scenario exited $status, not 2"
grep -q "^idbench: unknown fault scenario 'no-such-scenario' (scenarios: " "$work/err" ||
  fail "a list with an unknown scenario: $(cat "$work/err")"
[ ! -e "$work/list.json" ] || fail "a rejected list wrote its --out"

# Options a chosen scenario cannot run with: the same one line and exit 2, before anything runs.
"$idbench" real-chaos --scenario redis-kill9,redis-kill9-disk-busy --redis-persistence rdb \
  --out "$work/rdb.json" >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 2 ] || fail "redis-kill9-disk-busy with RDB only exited $status, not 2"
[ "$(wc -l <"$work/err")" -eq 1 ] || { fail "redis-kill9-disk-busy with RDB only: not one line"; cat "$work/err"; }
[ ! -e "$work/rdb.json" ] || fail "a refused option wrote its --out"
"$idbench" real-chaos --scenario ticket-restore --out "$work/no/such/dir/f.json" >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 2 ] || fail "an unwritable --out exited $status, not 2"

"$idbench" real-chaos --scenario uuid-clock-back --clock-injector nonsense >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 2 ] || fail "--clock-injector nonsense exited $status, not 2"
[ "$(wc -l <"$work/err")" -eq 1 ] || { fail "--clock-injector nonsense: not one line on stderr"; cat "$work/err"; }

if ! { command -v mariadbd || test -x /usr/sbin/mariadbd; } >/dev/null 2>&1; then
  rm -rf "$work"
  [ $failed -eq 0 ] && echo "skipped: mariadb-server is not installed (the rest passed)" && exit 77
  exit $failed
fi

# --quiet: nothing on stderr. The adapters' summary lines ("retries= deadlocks= failovers=")
# are read into the JSON (each part's adapter_counters), not shown.
"$idbench" real-chaos --scenario auto-increment-kill9 --flush 2 --lock-modes 2 --time-scale 0.2 \
  --quiet --out "$work/quiet.json" >"$work/out" 2>"$work/err"
status=$?
[ $status -le 1 ] || { fail "a --quiet run exited $status"; cat "$work/err"; }
[ -s "$work/err" ] && { fail "--quiet wrote on stderr:"; cat "$work/err"; }
/usr/bin/python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
part = doc["scenarios"][0]["parts"][0]
sys.exit(0 if isinstance(part["adapter_counters"]["retries"], int) else 1)' "$work/quiet.json" ||
  fail "--quiet: the JSON does not carry the adapters' counters"
/usr/bin/python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["config"]["clock_injector"] == "libfaketime" else 1)' \
  "$work/quiet.json" || fail "the JSON does not record config.clock_injector libfaketime by default"

# A ptrace injector that refuses to attach to the running server (a stand-in saying what
# idbench-inject says without permission, exit 3): the run is that refusal, exit 3, one line.
cat >"$work/refusing-inject" <<'EOF2'
#!/bin/sh
echo "idbench-inject: cannot trace process $4: Operation not permitted" >&2
exit 3
EOF2
chmod +x "$work/refusing-inject"
IDBENCH_INJECT="$work/refusing-inject" "$idbench" real-chaos --scenario uuid-clock-back \
  --clock-injector ptrace --time-scale 0.2 --quiet >"$work/out" 2>"$work/err"
status=$?
[ $status -eq 3 ] || { fail "a refused attach exited $status, not 3"; cat "$work/err"; }
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "refused to attach: idbench-inject: cannot trace" "$work/err" ||
  { fail "a refused attach: not the one line naming the refusal"; cat "$work/err"; }

# SIGINT once a server answers: exit 130 and nothing of this run left.
"$idbench" real-chaos --scenario ticket-server-down --out "$work/run.json" >"$work/out" 2>"$work/err" &
run=$!
i=0
until ls "$tmp"/idbench-*-"$run"-*/mysqld.sock >/dev/null 2>&1 || [ $i -ge 600 ]; do
  kill -0 $run 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
kill -INT $run 2>/dev/null
wait $run
status=$?
[ $status -eq 130 ] || { fail "an interrupted run exited $status, not 130"; cat "$work/err"; }
sleep 0.5
left=$(ls -d "$tmp"/idbench-*-"$run"-* 2>/dev/null)
[ -z "$left" ] || fail "SIGINT left directories: $left"
# Any process whose environment or command line names one of this run's directories.
for f in $(grep -lsE -- "$tmp/idbench-[a-z-]+-$run-" /proc/[0-9]*/environ /proc/[0-9]*/cmdline); do
  pid=$(echo "$f" | cut -d/ -f3)
  [ "$pid" = "$$" ] && continue
  cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
  case "$cmd" in grep*) continue ;; esac
  fail "SIGINT left process $pid: $cmd"
done
ls "$work"/.run.json.tmp-* >/dev/null 2>&1 && fail "SIGINT left a temp file beside --out"

rm -rf "$work"
[ $failed -eq 0 ] && echo "ok: real-chaos command line"
exit $failed
