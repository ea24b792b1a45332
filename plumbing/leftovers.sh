# leftovers.sh — the check the leave-nothing-behind tests share (sourced): which processes
# still refer to a run's directories, and a bounded wait for them to go.
#   leftover_processes PREFIX
#       prints "PID COMMAND" of every process (but this shell) whose command line, environment
#       or working directory names PREFIX (e.g. "$TMPDIR/idbench-")
#   no_process_left PREFIX TRIES PAUSE WHAT
#       waits up to TRIES × PAUSE s for them to go (a server stopped a moment ago may still be
#       exiting); returns 0 when none is left, else prints "FAIL: WHAT" and the processes,
#       kills them with -9 and returns 1
#   nothing_left_in DIR WHO NONE
#       the cleanup of a ctest fixture whose tests ran with TMPDIR=DIR: fails (after killing
#       them) if processes still refer to DIR/idbench-*, fails if an idbench-* directory is left
#       in DIR, removes DIR either way, and when nothing was left prints "ok: WHO left NONE in
#       DIR"; returns 0 or 1
#   wait_for_socket GLOB SOCKET PID
#       waits (at most 120 s) until a directory matching GLOB holds the unix socket SOCKET (a
#       run's server answers); returns 1 at once when PID (the run) has died, or at the limit
#   postgres_segment GLOB
#       prints "KEY SHMID" of the SysV segment a PostgreSQL server in a GLOB directory made (the
#       7th line of data/postmaster.pid, written after its socket), waiting up to 30 s;
#       returns 1 when none did
#   segment_exists KEY SHMID
#       true while that SysV segment exists (/proc/sysvipc/shm: key, shmid first)
# One grep over every environment and command line, one find over every working directory.
leftover_processes() {
  { grep -lsF -- "$1" /proc/[0-9]*/environ /proc/[0-9]*/cmdline
    find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$1*" 2>/dev/null
  } | cut -d/ -f3 | sort -u | while read -r pid; do
    [ "$pid" = "$$" ] && continue
    # A process that is gone by now (the grep itself among them) has no command line left.
    cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
    [ -n "$cmd" ] || continue
    echo "$pid $cmd"
  done
}

no_process_left() {  # PREFIX TRIES PAUSE WHAT
  _tries=0
  while [ -n "$(leftover_processes "$1")" ] && [ $_tries -lt "$2" ]; do
    sleep "$3"
    _tries=$((_tries + 1))
  done
  _left=$(leftover_processes "$1")
  [ -z "$_left" ] && return 0
  echo "FAIL: $4"
  echo "$_left"
  echo "$_left" | while read -r pid _; do kill -9 "$pid" 2>/dev/null; done
  return 1
}

nothing_left_in() {  # DIR WHO NONE
  _failed=0
  no_process_left "$1/idbench-" 20 0.5 "processes left behind by $2:" || _failed=1
  _dirs=$(ls -d "$1"/idbench-* 2>/dev/null)
  if [ -n "$_dirs" ]; then
    echo "FAIL: directories left behind by $2:"
    echo "$_dirs"
    _failed=1
  fi
  rm -rf "$1"
  [ $_failed -eq 0 ] && echo "ok: $2 left $3 in $1"
  return $_failed
}

wait_for_socket() {  # GLOB SOCKET PID
  _i=0
  while [ $_i -lt 1200 ]; do
    for _d in $1; do [ -S "$_d/$2" ] && return 0; done
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
    _i=$((_i + 1))
  done
  return 1
}

postgres_segment() {  # GLOB
  _i=0
  while [ $_i -lt 300 ]; do
    for _d in $1; do
      _line=$(sed -n 7p "$_d/data/postmaster.pid" 2>/dev/null)
      [ -n "$_line" ] && { echo "$_line"; return 0; }
    done
    sleep 0.1
    _i=$((_i + 1))
  done
  return 1
}

segment_exists() {  # KEY SHMID
  [ $# -eq 2 ] && awk -v k="$1" -v id="$2" 'NR > 1 && $1 == k && $2 == id { f = 1 } END { exit !f }' /proc/sysvipc/shm
}
