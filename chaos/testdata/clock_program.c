/* clock_program.c — a tiny Snowflake-like generator speaking idbench's line protocol, for the
 * fault-verification tests (chaos/fault_check.hpp).
 *
 * Reads a count N per line on stdin, answers N decimal IDs in the twitter layout
 * (ts=41 ms since 2010-11-04T01:42:54.657Z, node=10 bits from $IDBENCH_NODE_ID, seq=12), one a
 * line, then flushes; exits at EOF. When the clock is behind the last tick it keeps issuing
 * from that tick (it never repeats an ID). `clock_program NODE` ignores $IDBENCH_NODE_ID and
 * issues as NODE: its instances then repeat each other's IDs.
 *
 * Built twice (chaos/CMakeLists.txt):
 *   idbench-raw-clock-program   -DRAW_CLOCK, linked -static: reads CLOCK_REALTIME by
 *                               syscall(SYS_clock_gettime), which libfaketime never sees, so a
 *                               chaos run of it must report "fault not applied";
 *   idbench-libc-clock-program  clock_gettime() through libc, linked dynamically: the control,
 *                               which follows the faked clock.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int64_t kEpochMs = 1288834974657LL;

static int64_t now_ms(void) {
  struct timespec ts;
#ifdef RAW_CLOCK
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
#else
  clock_gettime(CLOCK_REALTIME, &ts);
#endif
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char** argv) {
  const char* node_env = argc > 1 ? argv[1] : getenv("IDBENCH_NODE_ID");
  const uint64_t node = (uint64_t)(node_env ? strtoull(node_env, NULL, 10) : 0) & 1023;
  int64_t last = -1;
  uint64_t seq = 0;
  char line[64];
  while (fgets(line, sizeof line, stdin) != NULL) {
    const long n = strtol(line, NULL, 10);
    for (long i = 0; i < n; ++i) {
      const int64_t t = now_ms() - kEpochMs;
      if (t > last) {
        last = t;
        seq = 0;
      } else if (++seq == 4096) {
        ++last;  /* the tick is used up (or the clock is behind): borrow the next one */
        seq = 0;
      }
      printf("%llu\n", (unsigned long long)(((uint64_t)last << 22) | (node << 12) | seq));
    }
    fflush(stdout);
  }
  return 0;
}
