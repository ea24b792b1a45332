#!/usr/bin/env bash
# reports/render.sh [RESULTS_DIR] — writes report.html, report.md and summary.json into
# RESULTS_DIR (default: reports/latest) from the bench.json, locality.json and chaos.json it
# holds. Missing or partial inputs are reported in the report, not fatal; each output is
# written to a temp file and renamed, so a reader never sees half a report.
#
#   reports/render.sh                      # ./run.sh report
#   reports/render.sh /tmp/run-42 --out /tmp/report
#
# Debian's /usr/bin/python3 runs it: python3-matplotlib (charts) is a Debian package that a
# python3 earlier on PATH (pyenv, venv) does not see. Exit: 0 written, 2 bad usage/unwritable.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${IDBENCH_PYTHON:-/usr/bin/python3}
if [ ! -x "$py" ]; then
  echo "render.sh: $py not found; install python3 (Debian) or set IDBENCH_PYTHON" >&2
  exit 2
fi
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  echo "render.sh: python3-matplotlib is missing: the report will have tables but no charts" \
       "(apt-get install python3-matplotlib)" >&2
fi
dir=${1:-$here/latest}
[ $# -gt 0 ] && shift
exec "$py" "$here/render.py" "$dir" "$@"
