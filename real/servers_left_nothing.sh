#!/bin/sh
# servers_left_nothing.sh — `idbench real` on a PostgreSQL or Redis system leaves nothing
# behind: killed with -9 once its server is up, no server or adapter survives it (the
# parent-death signal) and the directory it could not remove (with PostgreSQL's SysV segment)
# is swept by the next run; interrupted with SIGINT, it stops its server and removes its
# directory itself (exit 130).
#
#   servers_left_nothing.sh IDBENCH postgres|redis
# Exit 77 (ctest: skipped) when the server is not installed.
set -u
idbench=$1
kind=$2
case $kind in
  postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "skipped: postgresql is not installed"; exit 77; }
            system=postgres-sequence prefix=idbench-pg socket=.s.PGSQL.5432 ;;
  redis)    command -v redis-server >/dev/null 2>&1 || { echo "skipped: redis-server is not installed"; exit 77; }
            system=redis-incr prefix=idbench-redis socket=redis.sock ;;
  *) echo "usage: $0 IDBENCH postgres|redis" >&2; exit 2 ;;
esac

work=$(mktemp -d /tmp/servers-leftovers-XXXXXX)
chmod 755 "$work"  # postgres runs as nobody and must reach its directory inside
export TMPDIR=$work
failed=0
fail() { echo "FAIL: $*"; failed=1; }
. "$(dirname "$0")/../plumbing/leftovers.sh"  # no_process_left

# Run $1's server answers on its socket (plumbing/leftovers.sh); 1 if it never does.
wait_for_server() { wait_for_socket "$work/$prefix-$1-*" "$socket" "$1"; }
# PostgreSQL's SysV segment "KEY SHMID" (plumbing/leftovers.sh); nothing for Redis.
segment_of() {
  [ "$kind" = postgres ] || return 0
  postgres_segment "$work/$prefix-$1-*" || fail "run $1: postmaster.pid never named a SysV segment"
}
real_run() {
  "$idbench" real --system "$system" --clients 1 --requests 1 --seconds 60 --locality-rows 0 \
    --quiet --out "$work/out.json" >/dev/null 2>"$1" &
}

# 1. SIGKILL once the server is up: nothing runs on; the directory waits for the sweep.
real_run "$work/err1"
run=$!
segment=""
if wait_for_server $run; then
  sleep 1  # the adapter connected
  segment=$(segment_of $run)
  kill -9 $run
  wait $run 2>/dev/null
  no_process_left "$work/idbench-" 30 1 "kill -9 left processes behind:" || failed=1
  ls -d "$work"/"$prefix"-"$run"-* >/dev/null 2>&1 ||
    fail "expected the killed run's directory to be left for the sweep"
else
  fail "the $kind server never came up:"; cat "$work/err1"
  kill -9 $run 2>/dev/null
fi

# 2. SIGINT of the next run: it sweeps what the killed one left, then removes its own.
real_run "$work/err2"
run=$!
if wait_for_server $run; then
  kill -INT $run
  wait $run
  status=$?
  [ $status -eq 130 ] || { fail "an interrupted run exited $status, not 130:"; cat "$work/err2"; }
  no_process_left "$work/idbench-" 30 1 "SIGINT left processes behind:" || failed=1
  left=$(ls -d "$work"/idbench-* 2>/dev/null)
  [ -z "$left" ] || fail "the directories were not swept or removed: $left"
  # shellcheck disable=SC2086  # "KEY SHMID": two words
  [ -n "$segment" ] && segment_exists $segment && fail "the killed server's SysV segment $segment stayed"
else
  fail "the $kind server never came up:"; cat "$work/err2"
  kill -9 $run 2>/dev/null
fi

rm -rf "$work"
[ $failed -eq 0 ] && echo "ok: $system leaves nothing behind"
exit $failed
