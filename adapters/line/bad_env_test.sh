#!/bin/sh
# bad_env_test.sh — the MariaDB, PostgreSQL and Redis adapters refuse a wait ($IDBENCH_*_WAIT_MS) that
# is not a count of ms: one line naming the variable and its value, exit 2, before connecting
# (a typo never silently becomes the 5 s default).
#   bad_env_test.sh POSTGRES_ADAPTER REDIS_ADAPTER MARIADB_ADAPTER
set -u
failed=0
check() {  # name env... -- command...
  name=$1
  shift
  out=$(env "$@" </dev/null 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "$out" | wc -l)
  if [ $status -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -q "WAIT_MS '5s' is not a count of ms"; then
    echo "FAIL: $name: exit $status, $lines line(s): $out"
    failed=1
  fi
}
check postgres IDBENCH_POSTGRES_WAIT_MS=5s IDBENCH_POSTGRES_HOST=/nonexistent "$1" sequence
check redis IDBENCH_REDIS_WAIT_MS=5s IDBENCH_REDIS_SOCKET=/nonexistent/redis.sock "$2" incr
check mariadb IDBENCH_MARIADB_WAIT_MS=5s IDBENCH_MARIADB_SOCKETS=/nonexistent/mysqld.sock "$3" sequence
[ $failed -eq 0 ] && echo "ok: a wait that is not a count of ms is exit 2, one line"
exit $failed
