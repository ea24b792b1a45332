/* tracer_probe.c — a program for the tracer's tests (inject/tracer_test.cpp): it reads the
 * clock every way the tracer fakes or must leave alone and prints what it saw.
 *
 *   tracer_probe reads MARK   one line each, then exits:
 *                               raw NS           syscall(SYS_clock_gettime, REALTIME), args[2] 0
 *                               marked NS        the same with args[2] = MARK (the harness's mark)
 *                               gettimeofday NS  syscall(SYS_gettimeofday)
 *                               time S S         syscall(SYS_time, &t): its result, and t
 *                               monotonic NS     syscall(SYS_clock_gettime, MONOTONIC)
 *                               thread NS        the raw REALTIME read of a thread started now
 *                               libc NS          clock_gettime(REALTIME) through libc (vDSO)
 *   tracer_probe serve        starts a thread that sleeps, prints "ready PID", then answers
 *                             each line on stdin with a raw REALTIME read (NS); exits at EOF
 *   tracer_probe bench N M    N raw REALTIME reads, then M through libc:
 *                             "raw NS-PER-READ libc NS-PER-READ"
 *
 * Built without the project's options (a program under test, not idbench), linked dynamically:
 * the raw calls reach the kernel whatever libc does, and the libc read goes through the vDSO.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t ns_of(const struct timespec* ts) {
  return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t raw_read(clockid_t clock, uint64_t third) {
  struct timespec ts = {0, 0};
  syscall(SYS_clock_gettime, clock, &ts, third);
  return ns_of(&ts);
}

static void* thread_read(void* out) {
  *(int64_t*)out = raw_read(CLOCK_REALTIME, 0);
  return NULL;
}

static int reads(uint64_t mark) {
  printf("raw %" PRId64 "\n", raw_read(CLOCK_REALTIME, 0));
  printf("marked %" PRId64 "\n", raw_read(CLOCK_REALTIME, mark));
  struct timeval tv = {0, 0};
  syscall(SYS_gettimeofday, &tv, NULL);
  printf("gettimeofday %" PRId64 "\n", (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000);
  time_t t = 0;
  const long s = syscall(SYS_time, &t);
  printf("time %ld %" PRId64 "\n", s, (int64_t)t);
  printf("monotonic %" PRId64 "\n", raw_read(CLOCK_MONOTONIC, 0));
  pthread_t thread;
  int64_t from_thread = 0;
  if (pthread_create(&thread, NULL, thread_read, &from_thread) != 0) return 1;
  pthread_join(thread, NULL);
  printf("thread %" PRId64 "\n", from_thread);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("libc %" PRId64 "\n", ns_of(&ts));
  return 0;
}

static void* sleep_on(void* unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static int serve(void) {
  pthread_t sleeper;
  if (pthread_create(&sleeper, NULL, sleep_on, NULL) != 0) return 1;
  printf("ready %ld\n", (long)getpid());
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof line, stdin) != NULL) {
    printf("%" PRId64 "\n", raw_read(CLOCK_REALTIME, 0));
    fflush(stdout);
  }
  return 0;
}

static int64_t mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ns_of(&ts);
}

static int bench(long n, long m) {
  if (n <= 0 || m <= 0) return 2;
  struct timespec ts;
  const int64_t t0 = mono_now();
  for (long i = 0; i < n; ++i) syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts, 0);
  const int64_t t1 = mono_now();
  for (long i = 0; i < m; ++i) clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t t2 = mono_now();
  printf("raw %.1f libc %.1f\n", (double)(t1 - t0) / (double)n, (double)(t2 - t1) / (double)m);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "reads") == 0) return reads(strtoull(argv[2], NULL, 0));
  if (argc == 2 && strcmp(argv[1], "serve") == 0) return serve();
  if (argc == 4 && strcmp(argv[1], "bench") == 0) {
    return bench(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
  }
  fprintf(stderr, "usage: tracer_probe reads MARK | serve | bench N M\n");
  return 2;
}
