#!/usr/bin/env bash
# idbench — the two commands:
#   ./run.sh        install what is missing, build, run the default suite, write the report
#   ./run.sh test   install what is missing, build, run every test through ctest: the C++ ones
#                   under AddressSanitizer+UBSan (the concurrent ones also under ThreadSanitizer),
#                   the Python ones once, then every fuzz target 5 s
#   ./run.sh advise [DIR] --engine mariadb --writers 40 --row-bytes 250 --must 64-bit
#                   every scheme ranked for a workload, from measured results (reports/latest)
# Other commands: bench [--full] | locality | chaos | real-chaos [--full] | derived-ids | report | smoke
#                 | report --compare DIR_A DIR_B [--out DIR]   (two runs' first screens side by side)
#                 | build | compare BASE_DIR NEW_DIR | compare --revs BASE NEW   (the regression gate)
#                 | worker-ids   (every worker-id scenario × behaviour on a private etcd, rates, ~5.5 min)
#                 | fuzz [SECONDS [TARGET...]]   (each fuzz target SECONDS, default 60)
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD
build=$root/build
bin=$build/bin
latest=$root/reports/latest
jobs=2
started=$(date +%s)

say() { printf '\n==> [%s +%ss] %s\n' "$(date +%H:%M:%S)" "$(($(date +%s) - started))" "$*" >&2; }
die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }

# Debian packages, by what needs them. Build and test need all of `build_packages`.
build_packages=(cmake ninja-build g++ git libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev librapidcheck-dev libbenchmark-dev libboost-dev uuid-dev libsqlite3-dev
  faketime libfaketime libmariadb-dev libssl-dev ccache libpq-dev libhiredis-dev)
# socat relays a replica's link to its master, so that a fault can cut it.
engine_packages=(mariadb-server mariadb-client postgresql postgresql-contrib redis-server socat)
report_packages=(python3-matplotlib python3-scipy libbenchmark-tools)
# The report's browser test (reports/browser): Debian's chromium, driven by puppeteer-core.
browser_packages=(chromium)
# Worker ids leased from a real coordinator (coord/, idbench worker-ids): etcd 3.4.
coord_packages=(etcd-server etcd-client)
# The fuzz targets (fuzz/): clang and its libFuzzer runtime (libclang_rt.fuzzer on Debian 12).
fuzz_packages=(clang libclang-rt-14-dev)
# The Go adapters (adapters/go): the compiler and the five ID libraries' packaged sources, built
# offline in GOPATH mode. `bench --full` runs them as real systems; `test` builds and tests them.
go_packages=(golang-go golang-github-google-uuid-dev golang-github-gofrs-uuid-dev
  golang-github-oklog-ulid-dev golang-github-rs-xid-dev golang-github-segmentio-ksuid-dev)

ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    printf 'run.sh: missing Debian packages: %s\n  install them with: sudo apt-get install %s\n' \
      "${missing[*]}" "${missing[*]}" >&2
    exit 2
  fi
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/idbench-apt.log 2>&1; then
    apt-get update >>/tmp/idbench-apt.log 2>&1
    apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/idbench-apt.log 2>&1 ||
      { tail -20 /tmp/idbench-apt.log >&2; die "apt-get install failed (log: /tmp/idbench-apt.log)"; }
  fi
  rm -f /tmp/idbench-apt.log  # kept only when the install failed
}

# The npm packages of a directory of the checkout, pinned by its package-lock.json (adapters/node:
# the Node.js adapters; reports/browser: puppeteer-core for the report's browser test): Debian's
# nodejs and npm if missing, then `npm ci` when node_modules is missing or older than the lock.
ensure_npm_packages() {  # dir, relative to the checkout
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || ensure_packages nodejs npm
  local dir=$root/$1
  [ -d "$dir/node_modules" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules" ] && return 0
  say "installing the npm packages of $1 (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund >/tmp/idbench-npm.log 2>&1) ||
    { tail -20 /tmp/idbench-npm.log >&2; die "npm ci failed in $1 (log: /tmp/idbench-npm.log)"; }
  rm -f /tmp/idbench-npm.log  # kept only when npm ci failed
  touch "$dir/node_modules"
}

configure_and_build() {  # preset [target...]
  local preset=$1
  shift
  local targets=("${@:-all}")
  say "building ($preset, target ${targets[*]})"
  # ccache, keyed on paths relative to the checkout and not on the working directory (the
  # debug builds' -g would hash it), so a fresh clone elsewhere reuses the objects an earlier
  # build compiled: a CI run after a developer's build is mostly hits.
  if command -v ccache >/dev/null; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache \
      CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
  fi
  cmake --preset "$preset" >/dev/null
  # The unity builds' generated sources include by absolute path; made relative, a clone at
  # another path hits the cache for them too (tools/relative_unity.py).
  if command -v ccache >/dev/null && [ -x /usr/bin/python3 ]; then
    local dir=$root/build-$preset
    [ "$preset" = release ] && dir=$root/build
    /usr/bin/python3 tools/relative_unity.py "$root" "$dir"
  fi
  cmake --build --preset "$preset" --target "${targets[@]}" -- -j"$jobs"
}

# The real systems under faults, quick: at half length, MariaDB's scenarios, the kill -9 of
# PostgreSQL and of Redis (every persistence; and while its AOF fsync stalls), the promotion of
# a PostgreSQL standby and of a Redis replica cut off from their master, and PostgreSQL's clock
# stepped back 1 s under Instagram's next_id() and uuid_generate_v1() at 4 clients' rate;
# `./run.sh real-chaos --full` adds PostgreSQL's restore, with every setting. Exit 1 is what
# the systems did (a restored ticket server re-issues IDs), recorded in the JSON and the report,
# not a failure of the run; 2 and above are.
quick_real_scenarios=ticket-restore,ticket-server-down,auto-increment-kill9,postgres-kill9
quick_real_scenarios+=,redis-kill9,redis-kill9-disk-busy,postgres-standby-promotion
quick_real_scenarios+=,redis-replica-promotion,postgres-clock-back,uuid-clock-back
quick_real_scenarios+=,uuid-short-restart-behind
real_chaos_quick() {
  local status=0 scenarios=$quick_real_scenarios
  [ "${1:-}" = --full ] && { scenarios=all; shift; }
  "$bin/idbench" real-chaos --scenario "$scenarios" --time-scale 0.5 --flush 1,0 --lock-modes 2 \
    --steps 1 --rate-clients 4 \
    --out "$latest/real_chaos.json" "$@" || status=$?
  [ "$status" -le 1 ]
}

# Worker ids derived from the environment against a lease: a seeded model over the
# layouts `idbench list --json` describes, written to derived_ids.json for the report.
derived_ids() {
  /usr/bin/python3 reports/derived_ids_run.py --idbench "$bin/idbench" \
    --out "$latest/derived_ids.json" "$@"
}

# part NAME COMMAND...: one part of the default suite (a failure is named and the rest run; an
# interrupt stops the run).
source "$root/tools/parts.sh"

smoke() {
  # A generate + check run of every variant, with its figures: one file per thread, so order
  # violations are counted per thread (unordered variants show many; that is their nature).
  local tmp status=0
  tmp=$(mktemp -d)
  smoke_variants "$tmp" || status=$?
  rm -rf "$tmp"
  return "$status"
}

smoke_variants() {
  local tmp=$1
  local variants
  # The registry's variants, from the description `idbench list --json` prints (never its text).
  [ -x /usr/bin/python3 ] || { echo "run.sh: smoke reads idbench list --json with /usr/bin/python3:" \
    "apt-get install python3" >&2; return 1; }
  variants=$("$bin/idbench" list --json | /usr/bin/python3 -c \
    'import json, sys; print("\n".join(v["name"] for v in json.load(sys.stdin)["variants"]))') ||
    { echo "run.sh: idbench list --json did not give the variants" >&2; return 1; }
  [ -n "$variants" ] || { echo "run.sh: idbench list --json names no variant" >&2; return 1; }
  local n i=0
  n=$(echo "$variants" | wc -w)
  for v in $variants; do
    i=$((i + 1))
    printf '[%d/%d] %-15s ' "$i" "$n" "$v" >&2
    local figures
    figures=$("$bin/idbench" generate --variant "$v" --threads 2 --count 500000 \
      --out-dir "$tmp" 2>&1) || { echo "$figures" >&2; return 1; }
    printf '%s | ' "$(echo "$figures" | head -1 | sed 's/^[^:]*: //')" >&2
    "$bin/idbench" check "$tmp"/thread-*.txt >&2 || return 1
  done
}

# Every test once where it finds the most: the C++ tests under ASan+UBSan (the concurrent ones
# under ThreadSanitizer as well), built with warnings as errors; the Python tests (the report,
# advise, the gate), which run no compiled code, once; every fuzz target. A plain release run of
# the C++ tests would repeat the ASan run's assertions without its checks, at a third of CI's
# time. IDBENCH_SKIP_SANITIZERS=1: the release build and every test in it instead.
run_tests() {
  ensure_packages "${build_packages[@]}" "${engine_packages[@]}" "${report_packages[@]}" \
    "${fuzz_packages[@]}" "${coord_packages[@]}" "${browser_packages[@]}" "${go_packages[@]}"
  ensure_npm_packages adapters/node
  ensure_npm_packages reports/browser
  if [ "${IDBENCH_SKIP_SANITIZERS:-0}" = 1 ]; then
    configure_and_build release
    say "ctest (release)"
    ctest --preset release
    say "sanitizer runs skipped (IDBENCH_SKIP_SANITIZERS=1)"
    return 0
  fi
  cmake --preset release >/dev/null
  say "ctest: the Python tests (report, advise, gate; no compiled code)"
  ctest --preset release -L python
  configure_and_build tsan concurrent_tests
  say "ctest under ThreadSanitizer (concurrent tests)"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --preset tsan
  configure_and_build asan
  say "ctest under AddressSanitizer + UndefinedBehaviorSanitizer (every C++ test)"
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
    ctest --preset asan
  configure_and_build fuzz fuzz_targets
  say "fuzzing every parser, 5 s per target, $jobs at a time (./run.sh fuzz runs them longer)"
  fuzz/run_fuzz.sh "$root/build-fuzz/bin" 5
}

cmd=${1:-all}
[ $# -gt 0 ] && shift
case "$cmd" in
  test)
    run_tests
    ;;
  build)
    ensure_packages "${build_packages[@]}"
    configure_and_build release
    ;;
  smoke)
    ensure_packages "${build_packages[@]}"
    configure_and_build release programs
    smoke
    ;;
  bench)
    ensure_packages "${build_packages[@]}" "${engine_packages[@]}"  # the real systems: mariadb
    # --full runs every real system, the Node and Go adapters among them.
    ensure_npm_packages adapters/node
    ensure_packages "${go_packages[@]}"
    configure_and_build release programs idbench-go-adapter
    mkdir -p "$latest"
    [ -x bench/run_bench.sh ] || die "bench/run_bench.sh is missing"
    bench/run_bench.sh "$bin" "$latest/bench.json" "$@"
    ;;
  locality)
    ensure_packages "${build_packages[@]}" "${engine_packages[@]}"
    configure_and_build release programs
    mkdir -p "$latest"
    "$bin/idbench" locality --matrix --out "$latest/locality.json" "$@"
    ;;
  fuzz)
    ensure_packages "${build_packages[@]}" "${fuzz_packages[@]}"
    configure_and_build fuzz fuzz_targets
    say "fuzzing, ${1:-60} s per target"
    fuzz/run_fuzz.sh "$root/build-fuzz/bin" "${1:-60}" --keep-going "${@:2}"
    ;;
  chaos)
    ensure_packages "${build_packages[@]}"
    ensure_npm_packages adapters/node  # npm's Snowflake packages run beside the variants
    configure_and_build release programs
    mkdir -p "$latest"
    [ -x chaos/run_chaos.sh ] || die "chaos/run_chaos.sh is missing"
    chaos/run_chaos.sh "$bin" "$latest/chaos.json" "$@"
    ;;
  real-chaos)
    ensure_packages "${build_packages[@]}" "${engine_packages[@]}"
    configure_and_build release programs
    mkdir -p "$latest"
    real_chaos_quick "$@"
    ;;
  worker-ids)
    # The full profile: every scenario × behaviour with a 2 s lease (exit 1 of the
    # runs is the unfenced behaviour's caught duplicates: the finding, not a failure), the
    # lease-renewal and etcd write rates, then the worker-id report.
    ensure_packages "${build_packages[@]}" "${coord_packages[@]}" "${report_packages[@]}"
    configure_and_build release programs
    mkdir -p "$latest"
    status=0
    "$bin/idbench" worker-ids --scenario all --behaviour all --out "$latest/worker_ids.json" "$@" ||
      status=$?
    [ "$status" -le 1 ] || exit "$status"
    # Renewals/s and puts/s with this project's client, then etcdctl check perf --load=s (60 s).
    "$bin/idbench" worker-ids --rates --rate-seconds 2 --out "$latest/worker_ids_rates.json"
    /usr/bin/python3 reports/worker_ids.py "$latest/worker_ids.json" "$latest/worker_ids"
    ;;
  derived-ids)
    ensure_packages "${build_packages[@]}" "${report_packages[@]}"
    configure_and_build release idbench
    mkdir -p "$latest"
    derived_ids "$@"
    ;;
  report)  # report | report --compare DIR_A DIR_B [--out DIR]   (compare.html, two runs side by side)
    ensure_packages "${report_packages[@]}"
    if [ "${1:-}" = --compare ]; then
      shift
      # Paths as the caller gave them: from the directory run.sh was started in (OLDPWD, set by
      # the cd at the top), where compare.html goes without --out.
      cd "${OLDPWD:-$root}"
      exec /usr/bin/python3 "$root/reports/side_by_side.py" "$@"
    fi
    [ -x reports/render.sh ] || die "reports/render.sh is missing"
    reports/render.sh "$latest"
    ;;
  advise)  # advise [RESULTS_DIR] --engine E [--row-bytes N] [--writers N] [--rate N] [--must P,...]
    dir=$latest
    if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then dir=$1; shift; fi
    cd "${OLDPWD:-$root}"  # a DIR the caller gave is relative to where run.sh was started
    exec /usr/bin/python3 "$root/reports/advise.py" "$dir" "$@"
    ;;
  compare)
    if [ "${1:-}" = --revs ]; then  # build two revisions, run them interleaved, judge
      shift
      [ $# -ge 2 ] || die "usage: ./run.sh compare --revs BASE NEW [--out DIR] [--rounds R] [--no-chaos]"
      ensure_packages "${build_packages[@]}" "${report_packages[@]}" valgrind ccache
      exec reports/compare_revs.sh "$@"
    fi
    [ $# -eq 2 ] || die "usage: ./run.sh compare BASE_DIR NEW_DIR | compare --revs BASE NEW"
    ensure_packages "${report_packages[@]}"
    [ -x reports/compare.sh ] || die "reports/compare.sh is missing"
    exec reports/compare.sh "$1" "$2"
    ;;
  all)
    ensure_packages "${build_packages[@]}" "${engine_packages[@]}" "${report_packages[@]}"
    ensure_npm_packages adapters/node
    configure_and_build release programs
    mkdir -p "$latest"
    part "smoke: generate + check every variant" smoke
    [ -x bench/run_bench.sh ] && part "bench (quick)" bench/run_bench.sh "$bin" "$latest/bench.json"
    # The cross-check against the real engines at 100,000 rows (`./run.sh locality`: 300,000).
    part "locality matrix" "$bin/idbench" locality --matrix --validate-rows 100000 \
      --out "$latest/locality.json"
    [ -x chaos/run_chaos.sh ] && part "chaos matrix (quick)" chaos/run_chaos.sh "$bin" "$latest/chaos.json" --quick
    part "real systems under faults (quick)" real_chaos_quick
    part "worker ids from the environment (model)" derived_ids
    [ -x reports/render.sh ] && part "report" reports/render.sh "$latest"
    if [ ${#failed_parts[@]} -gt 0 ]; then
      say "done with failures: ${failed_parts[*]}"
      exit 1
    fi
    say "done; results in $latest"
    ;;
  -h | --help | help)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    die "unknown command '$cmd' (try ./run.sh --help)"
    ;;
esac
