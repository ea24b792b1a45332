#!/bin/sh
# left_nothing.sh — the coord_etcd fixture's cleanup: the etcd tests run with TMPDIR set to one
# private directory; after them no process (an etcd member, a node) may refer to it and no
# idbench-* directory (an etcd data directory, a run's files) may remain in it.
#   left_nothing.sh DIR
set -u
dir=$1
failed=0
. "$(dirname "$0")/../plumbing/leftovers.sh"  # no_process_left
no_process_left "$dir/idbench-" 20 0.5 "processes left behind by the etcd tests:" || failed=1
dirs=$(ls -d "$dir"/idbench-* 2>/dev/null)
if [ -n "$dirs" ]; then
  echo "FAIL: directories left behind by the etcd tests:"
  echo "$dirs"
  failed=1
fi
rm -rf "$dir"
[ $failed -eq 0 ] && echo "ok: the etcd tests left no etcd, no node and no directory in $dir"
exit $failed
