#!/bin/sh
# left_nothing.sh — the coord_etcd fixture's cleanup: the etcd tests run with TMPDIR set to one
# private directory; after them no process (an etcd member, a node) may refer to it and no
# idbench-* directory (an etcd data directory, a run's files) may remain in it.
#   left_nothing.sh DIR
set -u
. "$(dirname "$0")/../plumbing/leftovers.sh"  # nothing_left_in
nothing_left_in "$1" "the etcd tests" "no etcd, no node and no directory"
