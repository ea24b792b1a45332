#!/usr/bin/env bash
# reports/compare_revs.sh — the interleaved regression gate between two git revisions
# (./run.sh compare --revs BASE NEW). Builds both, measures both on this machine, judges.
#
#   reports/compare_revs.sh BASE NEW [--out DIR] [--rounds R] [--min-time S] [--no-chaos]
#                           [--base-cmake-arg ARG]... [--new-cmake-arg ARG]...
#   reports/compare_revs.sh HEAD~1 HEAD            # report: reports/latest/compare/report.md
#
# 1. Each revision is checked out in its own git worktree under one temp dir
#    (${TMPDIR:-/tmp}/idbench-gate.*, removed at exit; one left by a killed run is swept at
#    the next start) and built with the release preset (targets idbench, idbench-bench,
#    idbench-icount; ccache when installed, with CCACHE_BASEDIR on the temp dir so the next
#    run hits).
# 2. Correctness: each revision's quick chaos matrix (its own chaos/run_chaos.sh --quick,
#    ~2.5 min) into DIR/base/chaos.json and DIR/new/chaos.json (--no-chaos skips it).
# 3. Instructions per ID of every variant's 1-thread next() (bench/run_icount.py, valgrind)
#    into DIR/{base,new}/icount.json; a revision without idbench-icount is not counted.
# 4. The two bench binaries run alternately, round by round (reports/interleave.py) into
#    DIR/new/interleaved.json.
# 5. reports/compare.py DIR/base DIR/new writes DIR/report.md, printed too.
# Exit: 0 no regression; 1 a regression (correctness, instructions, or a gated slowdown);
# 2 bad usage or a revision that does not build; 130 interrupted.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
py=${IDBENCH_PYTHON:-/usr/bin/python3}
started=$(date +%s)
say() { printf '==> [%s +%ss] %s\n' "$(date +%H:%M:%S)" "$(($(date +%s) - started))" "$*" >&2; }
die() { printf 'compare_revs: %s\n' "$*" >&2; exit 2; }

usage="usage: compare_revs.sh BASE NEW [--out DIR] [--rounds R] [--min-time S] [--no-chaos] [--base-cmake-arg ARG]... [--new-cmake-arg ARG]..."
[ $# -ge 2 ] || die "$usage"
base_rev=$1 new_rev=$2
shift 2
out=$root/reports/latest/compare chaos=yes interleave_args=() base_args=() new_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?}; shift ;;
    --rounds | --min-time) interleave_args+=("$1" "${2:?}"); shift ;;
    --no-chaos) chaos=no ;;
    --base-cmake-arg) base_args+=("${2:?}"); shift ;;
    --new-cmake-arg) new_args+=("${2:?}"); shift ;;
    *) die "unknown argument '$1' ($usage)" ;;
  esac
  shift
done
# A temp dir is ours while the shell whose pid it names runs this script; any other is stale.
sweep() {
  local d pid
  for d in "${TMPDIR:-/tmp}"/idbench-gate.*; do
    [ -d "$d" ] || continue
    # One just made by mktemp, before its owner wrote owner.pid, is not stale.
    [ -f "$d/owner.pid" ] || [ -n "$(find "$d" -maxdepth 0 -mmin +1)" ] || continue
    pid=$(cat "$d/owner.pid" 2>/dev/null || echo 0)
    if [ "$pid" -gt 0 ] 2>/dev/null && kill -0 "$pid" 2>/dev/null &&
       tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q compare_revs; then
      continue
    fi
    rm -rf "$d"
  done
  git -C "$root" worktree prune
}
sweep
base_commit=$(git -C "$root" rev-parse --verify --quiet "$base_rev^{commit}") ||
  die "BASE '$base_rev' is not a commit of $root"
new_commit=$(git -C "$root" rev-parse --verify --quiet "$new_rev^{commit}") ||
  die "NEW '$new_rev' is not a commit of $root"
command -v cmake >/dev/null && command -v ninja >/dev/null || die "cmake and ninja are needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/idbench-gate.XXXXXX")
echo $$ >"$tmp/owner.pid"
cleanup() {
  local status=$?
  rm -rf "$tmp"
  git -C "$root" worktree prune 2>/dev/null || true
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$tmp
fi

# build SIDE COMMIT CMAKE_ARGS...: a worktree at COMMIT, built; its bin dir is $tmp/SIDE/build/bin.
build() {
  local side=$1 commit=$2
  shift 2
  local wt=$tmp/$side
  say "$side: ${commit:0:12}: worktree and build (release preset${*:+; $*})"
  git -C "$root" worktree add --detach --quiet "$wt" "$commit"
  (cd "$wt" && cmake --preset release "$@" >"$tmp/$side-configure.log" 2>&1) ||
    { tail -20 "$tmp/$side-configure.log" >&2; die "$side ($commit) does not configure"; }
  local targets=(idbench idbench-bench)
  ninja -C "$wt/build" -t query idbench-icount >/dev/null 2>&1 && targets+=(idbench-icount)
  cmake --build "$wt/build" --target "${targets[@]}" -- -j2 >"$tmp/$side-build.log" 2>&1 ||
    { tail -30 "$tmp/$side-build.log" >&2; die "$side ($commit) does not build"; }
}
build base "$base_commit" ${base_args[@]+"${base_args[@]}"}
build new "$new_commit" ${new_args[@]+"${new_args[@]}"}

rm -rf "$out"
mkdir -p "$out/base" "$out/new"
for side in base new; do
  bin=$tmp/$side/build/bin
  if [ "$chaos" = yes ]; then
    say "$side: the quick chaos matrix (correctness)"
    status=0
    "$tmp/$side/chaos/run_chaos.sh" "$bin" "$out/$side/chaos.json" --quick >"$out/$side-chaos.log" 2>&1 ||
      status=$?
    # Exit 1 is a finding recorded in chaos.json (the unsafe policy's duplicates); more is not.
    [ "$status" -le 1 ] || { tail -20 "$out/$side-chaos.log" >&2; die "$side: the chaos run failed ($status)"; }
  fi
  if [ -x "$bin/idbench-icount" ]; then
    say "$side: instructions per ID (valgrind)"
    "$py" "$root/bench/run_icount.py" "$bin" "$out/$side/icount.json"
  else
    say "$side: no idbench-icount at this revision: instruction counts not compared"
  fi
done
say "interleaved bench: BASE and NEW alternately"
"$py" "$here/interleave.py" "$tmp/base/build/bin" "$tmp/new/build/bin" "$out/new/interleaved.json" \
  ${interleave_args[@]+"${interleave_args[@]}"}
say "judging"
status=0
"$py" "$here/compare.py" "$out/base" "$out/new" --allow-missing >"$out/report.md.tmp" || status=$?
mv -f "$out/report.md.tmp" "$out/report.md"
cat "$out/report.md"
say "done (exit $status); report: $out/report.md"
exit "$status"
