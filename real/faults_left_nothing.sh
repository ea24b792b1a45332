#!/bin/sh
# faults_left_nothing.sh — the ctest fixture cleanup of the fault tests (FIXTURES_CLEANUP
# real_faults): they run with TMPDIR set to one private directory, so after them nothing may
# refer to it. Fails (after killing it) if a process — a mariadbd, an adapter, a client — still
# has that directory in its command line, working directory or environment, and fails if any
# idbench-* directory is left in it. Removes the directory at the end.
#
#   faults_left_nothing.sh DIR
set -u
. "$(dirname "$0")/../plumbing/leftovers.sh"  # nothing_left_in
nothing_left_in "$1" "the fault tests" "no process and no directory"
