#!/usr/bin/env bash
# run_locality.sh BIN_DIR OUTPUT_JSON — the default locality matrix, for `./run.sh locality`.
#
#   * the InnoDB model, 1,000,000 rows, for every registry variant x {1, 8} writers at 50 IDs
#     per ms (round-robin), plus the sequential and uniform random BIGINT baselines;
#   * the model-vs-real-engine cross-check (`idbench locality --validate`, 300,000 rows) when
#     mariadb-server is installed — it also runs SQLite and, if installed, PostgreSQL.
#
# Writes OUTPUT_JSON through a temp file and a rename, so a reader never sees half a file.
# Progress goes to stderr. Exit status: 0 written (validation disagreement is recorded in the
# JSON, not fatal: the report shows it); 2 bad arguments or a failed model run.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BIN_DIR OUTPUT_JSON" >&2
  exit 2
fi
bin_dir=$1
out=$2
idbench=${IDBENCH:-$bin_dir/idbench}
rows=${LOCALITY_ROWS:-1000000}
validate_rows=${LOCALITY_VALIDATE_ROWS:-300000}
if [[ ! -x $idbench ]]; then
  echo "run_locality.sh: $idbench not found (build first)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
IDBENCH_COMMIT=${IDBENCH_COMMIT:-$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)}
export IDBENCH_COMMIT

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.tmp.XXXXXX")
trap 'rm -f "$tmp" "$tmp.part"' EXIT

# `idbench list` prints one variant per line under a "variants" heading; take the first word
# of each indented line of that section.
mapfile -t variants < <("$idbench" list | awk '
  /^[^ ]/ { in_variants = ($0 ~ /^variants:/) }
  in_variants && /^ +[a-z]/ { print $1 }')
if [[ ${#variants[@]} -eq 0 ]]; then
  echo "run_locality.sh: no variants from '$idbench list'" >&2
  exit 2
fi

runs=()
for v in "${variants[@]}"; do
  for w in 1 8; do runs+=("--variant $v --writers $w --rate 50"); done
done
runs+=("--synthetic sequential" "--synthetic random")

{
  echo '{"matrix": ['
  n=${#runs[@]}
  i=0
  for r in "${runs[@]}"; do
    i=$((i + 1))
    echo "[locality $i/$n] model: $r ($rows rows)" >&2
    # shellcheck disable=SC2086  # $r is a list of flags
    "$idbench" locality $r --rows "$rows" --json > "$tmp.part"
    cat "$tmp.part"
    [[ $i -lt $n ]] && echo ','
  done
  echo '],'
  echo '"validation":'
  if command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]]; then
    echo "[locality] cross-check against real engines ($validate_rows rows; ~2 min)" >&2
    status=0
    "$idbench" locality --validate --rows "$validate_rows" --json > "$tmp.part" || status=$?
    if [[ $status -eq 0 || $status -eq 1 ]]; then
      cat "$tmp.part"
    else
      echo "[locality] validation failed to run (exit $status)" >&2
      echo null
    fi
    [[ $status -eq 1 ]] && echo "[locality] WARNING: the model disagrees with InnoDB" >&2
  else
    echo "[locality] mariadb-server not installed: cross-check skipped" >&2
    echo null
  fi
  echo '}'
} > "$tmp"

chmod 644 "$tmp"  # mktemp creates 0600; results are for everyone to read
mv "$tmp" "$out"
trap - EXIT
rm -f "$tmp.part"
echo "[locality] wrote $out" >&2
