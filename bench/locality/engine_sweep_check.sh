#!/bin/sh
# engine_sweep_check.sh — the ctest fixture cleanup of the tests that start real database
# servers: fails (after killing them) if a postgres or mariadbd whose idbench directory's
# owner is gone still runs (wherever its TMPDIR was), and removes idbench temp dirs of dead
# owners under $TMPDIR (as a run would).
set -u
tmp=${TMPDIR:-/tmp}
found=0
for p in /proc/[0-9]*; do
  cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
  cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
  for text in "$cwd" $cmd; do
    case "$text" in
      */idbench-postgres-*|*/idbench-mariadb-*) ;;
      *) continue ;;
    esac
    owner=$(echo "$text" | sed -n 's|.*/idbench-[a-z]*-\([0-9]*\)-.*|\1|p')
    if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
      echo "left behind by dead run $owner: ${p#/proc/} $cmd"
      kill -9 "${p#/proc/}" 2>/dev/null
      found=1
    fi
    break
  done
done
for d in "$tmp"/idbench-*-[0-9]*-??????; do
  [ -d "$d" ] || continue
  owner=$(basename "$d" | sed -n 's|^idbench-.*-\([0-9]*\)-......$|\1|p')
  [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null && rm -rf "$d"
done
exit $found
