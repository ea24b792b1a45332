#!/bin/sh
# engine_leftovers_test.sh — `idbench locality --engine E` leaves nothing behind:
# killed with -9 once its server is up, no server process survives it (the
# parent-death signal outlives the drop to `nobody`) and the temp dir it could not remove is
# swept by the next run; interrupted with SIGINT, it stops its server and removes its dir.
# Neither leaves shared memory in /dev/shm, nor PostgreSQL's SysV segment.
#
#   engine_leftovers_test.sh IDBENCH postgres|mariadb
# Exit 77 (ctest: skipped) when the engine's packages are not installed.
set -u
idbench=$1
engine=$2
case $engine in
  postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "skipped: postgresql is not installed"; exit 77; }
            socket=.s.PGSQL.5432 ;;
  mariadb)  { command -v mariadbd || test -x /usr/sbin/mariadbd; } >/dev/null 2>&1 || { echo "skipped: mariadb-server is not installed"; exit 77; }
            socket=mysqld.sock ;;
  *) echo "usage: $0 IDBENCH postgres|mariadb" >&2; exit 2 ;;
esac

# A private TMPDIR: the engine's directory lands here, and every check looks only here.
work=$(mktemp -d /tmp/engine-leftovers-XXXXXX)
chmod 755 "$work"  # postgres runs as nobody and must reach its directory inside
export TMPDIR=$work
failed=0
fail() { echo "FAIL: $*"; failed=1; }

. "$(dirname "$0")/../../plumbing/leftovers.sh"  # no_process_left

# The run's server answers on its socket (plumbing/leftovers.sh); 1 if it never does.
wait_for_server() { wait_for_socket "$work/idbench-$engine-$1-*" "$socket" "$1"; }

# Waits (at most ~30 s) for every leftover process to go; prints and kills what stays.
leftovers_gone() { no_process_left "$work/idbench-" 30 1 "$1 left processes behind:" || failed=1; }

seq 1 3000000 >"$work/keys.txt"
# Shared memory the run's server made outside its directory (PostgreSQL's dynamic shared memory
# is /dev/shm/PostgreSQL.N by default; a killed server never unlinks it): anything newer than this.
touch "$work/started"
shm_left() {
  [ "$engine" = postgres ] || return 0  # only PostgreSQL makes these; another test's are not ours
  left=$(find /dev/shm -maxdepth 1 -name 'PostgreSQL.*' -newer "$work/started" 2>/dev/null)
  [ -z "$left" ] && return 0
  # A segment a running server (another test's initdb) still uses goes within seconds; what
  # a killed server left stays for good.
  sleep 3
  stayed=""
  for f in $left; do [ -e "$f" ] && stayed="$stayed $f"; done
  [ -z "$stayed" ] || fail "$1 left shared memory in /dev/shm:$stayed"
}

# PostgreSQL's SysV segment (its interlock), which a killed server never removes: "KEY SHMID"
# (plumbing/leftovers.sh). Prints nothing for another engine.
segment_of() {
  [ "$engine" = postgres ] || return 0
  postgres_segment "$work/idbench-postgres-$1-*" ||
    fail "run $1: postmaster.pid never named a SysV segment"
}

# 1. SIGKILL once the server is up.
"$idbench" locality --keys "$work/keys.txt" --engine "$engine" >/dev/null 2>"$work/err1" &
run=$!
segment=""
if wait_for_server $run; then
  segment=$(segment_of $run)
  kill -9 $run
  wait $run 2>/dev/null
  leftovers_gone "kill -9"
  shm_left "kill -9"
  ls -d "$work"/idbench-"$engine"-"$run"-* >/dev/null 2>&1 ||
    fail "expected the killed run's directory to be left for the sweep"
  # shellcheck disable=SC2086  # "KEY SHMID": two words
  [ -z "$segment" ] || segment_exists $segment ||
    fail "expected the killed server's SysV segment $segment to be left for the sweep"
else
  fail "the $engine server never came up:"; cat "$work/err1"
  kill -9 $run 2>/dev/null
fi

# 2. The next run sweeps what the killed one left (the sqlite engine is quick).
seq 1 1000 >"$work/few.txt"
"$idbench" locality --keys "$work/few.txt" --engine sqlite >/dev/null 2>"$work/err2" ||
  { fail "the sqlite run failed:"; cat "$work/err2"; }
left=$(ls -d "$work"/idbench-* 2>/dev/null)
[ -z "$left" ] || fail "the next run did not sweep: $left"
# shellcheck disable=SC2086
segment_exists $segment && fail "the next run did not sweep the SysV segment (key, id) $segment"

# 3. SIGINT: the run stops its server and removes its directory itself.
"$idbench" locality --keys "$work/keys.txt" --engine "$engine" >/dev/null 2>"$work/err3" &
run=$!
if wait_for_server $run; then
  segment=$(segment_of $run)
  kill -INT $run
  wait $run
  status=$?
  [ $status -eq 130 ] || { fail "an interrupted run exited $status, not 130:"; cat "$work/err3"; }
  leftovers_gone "SIGINT"
  shm_left "SIGINT"
  # shellcheck disable=SC2086
  segment_exists $segment && fail "SIGINT left the SysV segment (key, id) $segment"
  left=$(ls -d "$work"/idbench-* 2>/dev/null)
  [ -z "$left" ] || fail "SIGINT left its directory: $left"
else
  fail "the $engine server never came up:"; cat "$work/err3"
  kill -9 $run 2>/dev/null
fi

rm -rf "$work"
[ $failed -eq 0 ] && echo "ok: $engine leaves nothing behind"
exit $failed
