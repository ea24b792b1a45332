# expect.sh — the assertions the end-to-end shell tests share (sourced after `tmp` is set):
#   expect CODE "description" command...   runs it, output to $tmp/out and $tmp/err
#   expect_text "pattern" "description"    greps the last command's output
# Each failure prints what ran and adds to $failures; the script exits with it.
failures=0
passes=0
expect() {  # expect CODE "description" command...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, want $want"; cat "$tmp/out" "$tmp/err"; failures=$((failures + 1))
  else
    echo "ok: $what"; passes=$((passes + 1))
  fi
}
expect_text() {  # expect_text "pattern" "description" (against the last command's output)
  if ! grep -q -- "$1" "$tmp/out" "$tmp/err"; then
    echo "FAIL: $2: no '$1' in output"; cat "$tmp/out" "$tmp/err"; failures=$((failures + 1))
  fi
}
