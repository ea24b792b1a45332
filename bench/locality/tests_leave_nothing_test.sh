#!/usr/bin/env bash
# tests_leave_nothing_test.sh TEST_BINARY... — each GoogleTest binary, run with TMPDIR and
# TEST_TMPDIR (GoogleTest's ::testing::TempDir()) on an empty directory, passes and leaves
# that directory empty: a test's scratch files are its own and go with it (a run leaves
# nothing behind; fixed names in a shared /tmp also race between two builds' ctest runs).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
for bin in "$@"; do
  dir=$tmp/$(basename "$bin")
  mkdir "$dir"
  if ! TMPDIR=$dir TEST_TMPDIR=$dir "$bin" >"$tmp/out" 2>&1; then
    echo "FAIL: $bin failed"; tail -20 "$tmp/out"; failures=$((failures + 1))
  fi
  left=$(ls -A "$dir")
  if [ -n "$left" ]; then
    echo "FAIL: $(basename "$bin") left in its temp dir: $(echo $left)"; failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] && echo "tests_leave_nothing_test: ok"
exit $((failures > 0))
