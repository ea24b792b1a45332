#!/usr/bin/env bash
# chaos/run_chaos.sh BIN_DIR OUT_JSON [idbench chaos --matrix options...]
#
# The chaos matrix: every scenario × the variants whose description asks for the
# chaos matrix (`idbench list --json`, defaults.chaos) × every policy, 2 nodes × 2 threads at
# 40 k IDs/s per node, plus restart-during-regression with a persisted high-water mark. About
# 16 minutes on 2 cores (288 cells), plus npm's Snowflake packages as programs; `--quick`
# (the variants marked chaos_quick, timelines at a quarter of their length and restarts at half,
# two npm packages in full) takes about 2.5.
# Progress (cell i of N, what runs, time left) goes to stderr; OUT_JSON is rewritten whole
# (temp file + rename) after every cell, with "complete": false until the last, so an
# interrupted run leaves a valid partial file.
#
# Exit status: 0 when every cell of a built-in variant kept its promise, 1 when one did not (or
# could not run), 2 on bad usage.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: chaos/run_chaos.sh BIN_DIR OUT_JSON [--quick] [--scenarios a,b] [--variants ...]" >&2
  exit 2
fi
bin=$1
out=$2
shift 2

[ -x "$bin/idbench" ] || { echo "run_chaos.sh: $bin/idbench is missing; build first" >&2; exit 2; }
cmd=("$bin/idbench" chaos)
[ -x "$bin/idbench-chaos-node" ] || { echo "run_chaos.sh: $bin/idbench-chaos-node is missing" >&2; exit 2; }

# Beside the built-in variants, npm's Snowflake packages run as programs (their own clock
# policies, at full length): the quick matrix one that re-issues after a step back and one that
# waits it out, the full matrix all five. Their verdicts are findings about them, not failures
# of the matrix. A --systems given here replaces the list.
programs=node-nodejs-snowflake,node-flake-idgen
case " $* " in *" --quick "*) ;; *)
  programs=node-snowflake-id,node-nodejs-snowflake,node-flake-idgen,node-snowflake,node-snowflake-defaults ;;
esac
case " $* " in *" --systems "*) programs= ;; esac

# The JSON's context block (commit, dirty marker, machine) is idbench's own run context.
mkdir -p "$(dirname "$out")"
exec "${cmd[@]}" --matrix --out "$out" ${programs:+--systems "$programs"} "$@"
