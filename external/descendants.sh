# descendants.sh — what a run of an --exec program left behind, for the end-to-end tests
# (sourced after `tmp` is set). Every process a run starts under IDBENCH_TEST_MARK=MARK carries
# the mark in its environment, so its leftovers are found whoever adopted them.
#   write_spawner PATH     a program speaking the protocol (a counter from IDBENCH_NODE_ID ×
#                          1000000) that first starts a background child, out of its process
#                          group with setsid when $SETSID=1, and waits until it runs; the child
#                          touches $CHILD_DIR/NODE.PID
#   children_started DIR N true once DIR holds N such files (within 10 s)
#   marked MARK            pids of live processes whose environment holds IDBENCH_TEST_MARK=MARK
#   none_left MARK         true when none is left within 5 s; otherwise kills them, false
write_spawner() {
  cat >"$1" <<'EOF'
#!/bin/sh
ready=$CHILD_DIR/$IDBENCH_NODE_ID.$$
if [ "${SETSID:-0}" = 1 ]; then
  setsid sh -c "touch $ready; exec sleep 300" </dev/null >/dev/null 2>&1 &
else
  sh -c "touch $ready; exec sleep 300" </dev/null >/dev/null 2>&1 &
fi
while [ ! -e "$ready" ]; do sleep 0.01; done
i=$((IDBENCH_NODE_ID * 1000000))
while read n; do
  j=0; while [ $j -lt $n ]; do i=$((i+1)); echo $i; j=$((j+1)); done
done
EOF
  chmod +x "$1"
}

children_started() {
  for _ in $(seq 100); do
    [ "$(ls "$1" | wc -l)" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

marked() {  # (a zombie's environment reads empty: only the living match)
  grep -lzx "IDBENCH_TEST_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

none_left() {
  local p
  for _ in $(seq 50); do
    [ -z "$(marked "$1")" ] && return 0
    sleep 0.1
  done
  for p in $(marked "$1"); do kill -9 "$p" 2>/dev/null; done
  return 1
}
