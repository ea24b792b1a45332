#!/usr/bin/env bash
# build_commit_script_test.sh CMAKE SCRIPT — build_commit.cmake names a clean commit, marks a
# changed tracked file dirty (an untracked one is not), says "unknown" outside git, and
# leaves its output untouched when nothing changed (so a build at the same commit relinks
# nothing).
set -u
cmake=$1
script=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$cmake" -DSOURCE_DIR="$1" -DOUT="$tmp/out.cpp" -P "$script" || fail "script failed on $1"; }
says() { grep -qF -- "$1" "$tmp/out.cpp" || { fail "$2: no '$1' in"; cat "$tmp/out.cpp"; }; }

repo=$tmp/repo
git init -q "$repo" && echo one >"$repo/f" && git -C "$repo" add f &&
  git -C "$repo" -c user.email=t@t -c user.name=t commit -q -m one ||
  { echo "SKIP: git cannot make a repository"; exit 0; }
head=$(git -C "$repo" rev-parse HEAD)
echo x >"$repo/untracked"
run "$repo"
says "{\"$head\", false}" "a clean tree"

before=$(stat -c %Y.%i "$tmp/out.cpp")
touch -d '2000-01-01' "$tmp/out.cpp"
run "$repo"
[ "$(stat -c %Y "$tmp/out.cpp")" = "$(date -d 2000-01-01 +%s)" ] ||
  fail "the output was rewritten though the commit did not change ($before)"

echo two >"$repo/f"
run "$repo"
says "{\"$head\", true}" "a changed tracked file"

mkdir "$tmp/plain"
run "$tmp/plain"
says '{"unknown", false}' "a directory outside git"

[ "$failures" -eq 0 ] && echo "build_commit_script_test: ok"
exit $((failures > 0))
