#!/usr/bin/env bash
# docs/gate-ci.sh — the regression gate for any CI system: the same job as
# docs/gate-github-actions.yml, as a script.
#
#   docs/gate-ci.sh BASE NEW [SUMMARY_FILE]
#
# Builds BASE and NEW, runs the interleaved gate (./run.sh compare --revs), appends report.md
# to SUMMARY_FILE (default: $GITHUB_STEP_SUMMARY when set, else only printed), and exits as the
# gate does: 0 no regression, 1 a correctness regression or a gated slowdown, 2 bad usage or a
# revision that does not build.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: docs/gate-ci.sh BASE NEW [SUMMARY_FILE]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
summary=${3:-${GITHUB_STEP_SUMMARY:-}}
out=${IDBENCH_GATE_OUT:-$root/reports/latest/compare}
status=0
"$root/run.sh" compare --revs "$1" "$2" --out "$out" || status=$?
if [ -n "$summary" ] && [ -f "$out/report.md" ]; then
  cat "$out/report.md" >>"$summary"
fi
exit "$status"
