#!/bin/sh
# faults_left_nothing.sh — the ctest fixture cleanup of the fault tests (FIXTURES_CLEANUP
# real_faults): they run with TMPDIR set to one private directory, so after them nothing may
# refer to it. Fails (after killing it) if a process — a mariadbd, an adapter, a client — still
# has that directory in its command line, working directory or environment, and fails if any
# idbench-* directory is left in it. Removes the directory at the end.
#
#   faults_left_nothing.sh DIR
set -u
dir=$1
failed=0

# One grep over every environment and command line, one find over every working directory.
leftovers() {
  { grep -lsF -- "$dir/idbench-" /proc/[0-9]*/environ /proc/[0-9]*/cmdline
    find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$dir/idbench-*" 2>/dev/null
  } | cut -d/ -f3 | sort -u | while read -r pid; do
    [ "$pid" = "$$" ] && continue
    cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
    echo "$pid $cmd"
  done
}

# A server stopped by its owner a moment ago may still be exiting: wait a little.
i=0
while [ -n "$(leftovers)" ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
left=$(leftovers)
if [ -n "$left" ]; then
  echo "FAIL: processes left behind by the fault tests:"
  echo "$left"
  echo "$left" | while read -r pid _; do kill -9 "$pid" 2>/dev/null; done
  failed=1
fi
dirs=$(ls -d "$dir"/idbench-* 2>/dev/null)
if [ -n "$dirs" ]; then
  echo "FAIL: directories left behind by the fault tests:"
  echo "$dirs"
  failed=1
fi
rm -rf "$dir"
[ $failed -eq 0 ] && echo "ok: the fault tests left no process and no directory in $dir"
exit $failed
