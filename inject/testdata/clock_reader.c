/* clock_reader.c — a program whose clock reads the vDSO patch tests (inject/vdso_patch_test.cpp)
 * look at: each stdin line is a command, each answer one line on stdout, flushed.
 *
 *   read        "<realtime_ns> <gettimeofday_ns> <time_s> <monotonic_ns> <raw_realtime_ns>
 *                <tz_minuteswest> <tz_dsttime>": CLOCK_REALTIME through libc's clock_gettime,
 *               gettimeofday (µs, as ns) with a timezone it fills in before (-1, -1), time(),
 *               CLOCK_MONOTONIC through libc, and CLOCK_REALTIME by syscall(SYS_clock_gettime),
 *               which no vDSO patch sees
 *   bench N     "<ns per read> <0 or 1>": N reads of CLOCK_REALTIME through libc's
 *               clock_gettime, timed on CLOCK_MONOTONIC by raw system calls (the second number
 *               depends on the reads, so the compiler cannot drop them)
 *   mdwe        "<0 or errno>": prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN): from then on the
 *               process may not make writable memory executable (a write-xor-execute policy)
 *
 * Exits 0 at EOF, 2 on an unknown command. Built without the project's options
 * (inject/CMakeLists.txt): it is a program under test, as a user would build it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t ns(const struct timespec* ts) {
  return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t raw_ns(clockid_t id) {
  struct timespec ts;
  syscall(SYS_clock_gettime, id, &ts);
  return ns(&ts);
}

static void read_clocks(void) {
  struct timespec realtime, monotonic;
  struct timeval tv;
  struct timezone tz = {-1, -1};
  clock_gettime(CLOCK_REALTIME, &realtime);
  gettimeofday(&tv, &tz);
  const time_t seconds = time(NULL);
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  printf("%lld %lld %lld %lld %lld %d %d\n", (long long)ns(&realtime),
         (long long)tv.tv_sec * 1000000000 + (long long)tv.tv_usec * 1000, (long long)seconds,
         (long long)ns(&monotonic), (long long)raw_ns(CLOCK_REALTIME), tz.tz_minuteswest,
         tz.tz_dsttime);
}

static void bench(long n) {
  struct timespec ts;
  int64_t sink = 0;
  const int64_t start = raw_ns(CLOCK_MONOTONIC);
  for (long i = 0; i < n; ++i) {
    clock_gettime(CLOCK_REALTIME, &ts);
    sink += ts.tv_nsec;
  }
  const int64_t elapsed = raw_ns(CLOCK_MONOTONIC) - start;
  printf("%.2f %lld\n", n > 0 ? (double)elapsed / (double)n : 0.0, (long long)(sink & 1));
}

int main(void) {
  char line[64];
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strcmp(line, "read\n") == 0) {
      read_clocks();
    } else if (strcmp(line, "mdwe\n") == 0) {
      printf("%d\n", prctl(65 /* PR_SET_MDWE */, 1 /* PR_MDWE_REFUSE_EXEC_GAIN */, 0, 0, 0) == 0
                         ? 0
                         : errno);
    } else if (strncmp(line, "bench ", 6) == 0) {
      bench(strtol(line + 6, NULL, 10));
    } else {
      fprintf(stderr, "clock_reader: unknown command (want read, bench N or mdwe)\n");
      return 2;
    }
    fflush(stdout);
  }
  return 0;
}
