#!/usr/bin/env bash
# run_browser_test.sh — the report's first screen in headless Chromium, and proof that the
# check can fail (the browser ctest, reports/CMakeLists.txt).
#
#   reports/browser/run_browser_test.sh [OUT_DIR]      (default ./browser-test-output)
#
# 1. renders the planted results (reports/testdata/planted) with render.py into OUT_DIR/planted
#    and runs browser_test.js on it: every assertion must hold; the screenshots
#    (planted-first-screen.png at 1366×768, planted-full-page.png) are left in OUT_DIR;
# 2. the same assertions on the planted data with the leaf fills reversed (Snowflake's and
#    UUIDv4's 8-writer fills swapped between key-only and 1,000 B rows): they must fail, on the
#    ranking;
# 3. the same assertions on the planted page without the picker's script
#    (<script id="idbench-picker">): they must fail.
# The expected answers come from advise.py for each results directory.
#
# Exit: 0 passed; 1 failed; 77 skipped, only when node or /usr/bin/chromium is not installed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reports=$(dirname "$here")
out=$(mkdir -p "${1:-browser-test-output}" && cd "${1:-browser-test-output}" && pwd)
python=${IDBENCH_REPORTS_PYTHON:-/usr/bin/python3}
chromium=${IDBENCH_CHROMIUM:-/usr/bin/chromium}
started=$(date +%s)

command -v node >/dev/null 2>&1 ||
  { echo "skipped: node is not installed (apt-get install nodejs npm; ./run.sh test installs it)"; exit 77; }
[ -x "$chromium" ] ||
  { echo "skipped: $chromium is not installed (apt-get install chromium; ./run.sh test installs it)"; exit 77; }
if [ ! -d "$here/node_modules/puppeteer-core" ]; then
  echo "puppeteer-core is not installed: npm ci in $here"
  (cd "$here" && npm ci --no-audit --no-fund) || { echo "FAIL: npm ci failed in $here"; exit 1; }
fi
export IDBENCH_CHROMIUM=$chromium

tmp=$(mktemp -d "${TMPDIR:-/tmp}/idbench-browser-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; echo "browser test: $(($(date +%s) - started)) s"; exit 1; }

render() {  # results_dir out_dir [render.py flags]
  "$python" "$reports/render.py" "$1" --out "$2" "${@:3}" >"$tmp/render.log" 2>&1 ||
    { cat "$tmp/render.log"; fail "render.py $1 failed"; }
}

expected() {  # results_dir expected.json: advise.py's answers for the workloads the test picks
  "$python" - "$reports" "$1" "$2" <<'EOF' || fail "advise.py could not answer for $1"
import json, sys
sys.path.insert(0, sys.argv[1])
import advise
from facts import load_facts
facts = load_facts(sys.argv[2])
p = advise.PROFILES[0]
def answer(w):
    return advise.to_json(facts, advise.advise(facts, w))
out = {"profile": answer(advise.Workload(p["engine"], p["row_bytes"], p["writers"], p["rate"],
                                         list(p["musts"]))),
       "row0": answer(advise.Workload("mariadb", 0, 8, 0.0, [])),
       "row1000": answer(advise.Workload("mariadb", 1000, 8, 0.0, []))}
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
EOF
}

drive() {  # name html expected.json [shots dir] -> browser_test.js's exit status; log in $tmp/name.log
  local name=$1 html=$2 exp=$3 shots=${4:-}
  node "$here/browser_test.js" --html "$html" --expect "$exp" --name "$name" \
    ${shots:+--shots "$shots"} >"$tmp/$name.log" 2>&1
}

# 1. the planted results: everything must hold.
echo "== planted results ($reports/testdata/planted)"
render "$reports/testdata/planted" "$out/planted"
expected "$reports/testdata/planted" "$tmp/planted.json"
drive planted "$out/planted/report.html" "$tmp/planted.json" "$out"
status=$?
cat "$tmp/planted.log"
[ "$status" -eq 0 ] || fail "the first screen of the planted report (screenshots in $out)"

# 2. the fills reversed: the row-size assertion must fail.
echo "== planted results with the leaf fills reversed (must fail)"
mkdir -p "$tmp/reversed"
cp "$reports/testdata/planted/"*.json "$tmp/reversed/"
"$python" - "$tmp/reversed/locality.json" <<'EOF' || fail "could not reverse the planted fills"
import json, sys
path = sys.argv[1]
with open(path) as f:
    loc = json.load(f)
entries = {}
for m in loc["matrix"]:
    s = m.get("stream") or {}
    if s.get("variant") in ("cas", "uuidv4") and s.get("writers") == 8:
        entries.setdefault(s["variant"], {})[m.get("payload_bytes", 0)] = m
for by_row in entries.values():
    a, b = by_row[0], by_row[1000]
    for k in ("avg_leaf_fill", "splits_per_1k"):
        a[k], b[k] = b[k], a[k]
assert len(entries) == 2, entries.keys()
with open(path, "w") as f:
    json.dump(loc, f)
EOF
render "$tmp/reversed" "$tmp/reversed-out" --no-charts
expected "$tmp/reversed" "$tmp/reversed.json"
drive reversed "$tmp/reversed-out/report.html" "$tmp/reversed.json"
status=$?
sed 's/^/  reversed| /' "$tmp/reversed.log"
[ "$status" -ne 2 ] || fail "browser_test.js could not drive the reversed page"
[ "$status" -ne 0 ] || fail "the browser test cannot see a reversed ranking"
grep -q "^FAIL: .*Snowflake" "$tmp/reversed.log" ||
  fail "the reversed ranking failed, but not on the Snowflake/UUIDv4 order"

# 3. the picker's script removed: the answer must fail.
echo "== the planted page without the picker's script (must fail)"
mkdir -p "$tmp/nopicker"
"$python" - "$out/planted/report.html" "$tmp/nopicker/report.html" <<'EOF' || fail "could not remove the picker"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
cut, n = re.subn(r'<script id="idbench-picker">.*?</script>', "", page, flags=re.S)
assert n == 1, f"{n} picker scripts"
open(sys.argv[2], "w", encoding="utf-8").write(cut)
EOF
drive nopicker "$tmp/nopicker/report.html" "$tmp/planted.json"
status=$?
sed 's/^/  nopicker| /' "$tmp/nopicker.log"
[ "$status" -ne 2 ] || fail "browser_test.js could not drive the page without the picker"
[ "$status" -ne 0 ] || fail "the browser test cannot see a missing picker"

echo "browser test passed: the planted first screen holds; the reversed fills and the missing" \
  "picker are caught ($(($(date +%s) - started)) s; screenshots in $out)"
