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

. "$(dirname "$0")/../plumbing/leftovers.sh"  # no_process_left
no_process_left "$dir/idbench-" 20 0.5 "processes left behind by the fault tests:" || failed=1
dirs=$(ls -d "$dir"/idbench-* 2>/dev/null)
if [ -n "$dirs" ]; then
  echo "FAIL: directories left behind by the fault tests:"
  echo "$dirs"
  failed=1
fi
rm -rf "$dir"
[ $failed -eq 0 ] && echo "ok: the fault tests left no process and no directory in $dir"
exit $failed
