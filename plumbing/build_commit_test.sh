#!/usr/bin/env bash
# build_commit_test.sh IDBENCH — the run context names the commit the binary was built from,
# not whatever git answers when the binary runs: with GIT_DIR pointing at another repository
# (as a kept old binary run from another tree would see), the commit in a result is still the
# build's own.
set -u
idbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

git -C "$tmp" init -q other && git -C "$tmp/other" -c user.email=t@t -c user.name=t \
  commit -q --allow-empty -m other || { echo "SKIP: git cannot make a repository"; exit 0; }
other=$(git -C "$tmp/other" rev-parse HEAD)

commit_seen() {  # the commit in the run context of a small locality run, under env "$@"
  env -u IDBENCH_COMMIT -u IDBENCH_DIRTY "$@" "$idbench" locality --synthetic sequential \
    --rows 1000 --json | /usr/bin/python3 -c \
    'import json, sys; print(json.load(sys.stdin)["context"]["commit"])'
}
own=$(commit_seen)
seen=$(commit_seen GIT_DIR="$tmp/other/.git" GIT_WORK_TREE="$tmp/other")
if [ "$seen" = "$other" ]; then
  echo "FAIL: the run context took the commit of the repository git found at run time ($other)"
  failures=$((failures + 1))
fi
if [ "$seen" != "$own" ]; then
  echo "FAIL: the run context's commit depends on the environment: '$own', then '$seen'"
  failures=$((failures + 1))
fi
# The environment's override still wins (a CI job building from a tarball).
forced=$(commit_seen IDBENCH_COMMIT=abc123)
[ "$forced" = abc123 ] || { echo "FAIL: IDBENCH_COMMIT=abc123 gave '$forced'"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] && echo "build_commit_test: ok"
exit $((failures > 0))
