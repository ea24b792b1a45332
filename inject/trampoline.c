/* trampoline.c — the code a patched vDSO clock entry point jumps to: it calls the relocated
 * original vDSO function, then, while the clock page is armed, rewrites what it returned with
 * idbench_fake_ns (clock_page.h), the one function that says what a target reads.
 *
 * Freestanding: no libc, no loader. The build (inject/CMakeLists.txt) compiles it without the
 * project's options, links it at address 0 into one blob of code and data (trampoline.ld), checks
 * that it holds no relocation a loader would have to apply (only PC-relative ones, resolved at
 * link time), and embeds the bytes and the offsets of the three entry points and of the
 * parameter block in a generated C++ source. The patcher copies the blob into a target next to
 * its vDSO and fills the parameter block (trampoline.h).
 *
 * Registers: built with -mgeneral-regs-only, so no vector register changes (Go keeps a zero in
 * X15 and its vDSO call sites do not save vector registers); otherwise the System V ABI, as the
 * vDSO's own functions, so every caller of the vDSO (libc, Go, a static binary) can call these.
 * Stack, over what the original uses: about 50 bytes on the fast path, 160 when faking, 250 when
 * a write under way is retried (Go calls the vDSO on its system stack, which has room).
 *
 * Cost: unarmed, one extra call and one load of the page's deadline; armed, a seqlock read of one
 * cache line, a 64x64-bit multiplication and a division by a constant (a multiplication).
 */
#include "inject/trampoline.h"

#include "inject/clock_page.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The kernel's struct timespec, struct timeval and struct timezone on x86-64. */
struct k_timespec {
  int64_t tv_sec;
  int64_t tv_nsec;
};
struct k_timeval {
  int64_t tv_sec;
  int64_t tv_usec;
};
struct k_timezone;

typedef int (*clock_gettime_fn)(int, struct k_timespec*);
typedef int (*gettimeofday_fn)(struct k_timeval*, struct k_timezone*);
typedef int64_t (*time_fn)(int64_t*);

/* External linkage, hidden: the compiler must read the fields at run time (the patcher writes
 * them), and addresses them PC-relative, without a GOT. */
HIDDEN struct idbench_trampoline_params idbench_trampoline_params = {IDBENCH_TRAMPOLINE_MAGIC, 0, 0,
                                                                     0, 0};

static const int64_t kNsPerSec = 1000000000;

/* The page's deadline, the one field the fast path reads: 0 means unarmed. Relaxed: a stale
 * value only moves this read to just before or after the writer's update, which a read
 * concurrent with it may be anyway; the fields a faked read uses come from the seqlock read. */
static inline const struct idbench_clock_page* armed_page(void) {
  const struct idbench_clock_page* page =
      (const struct idbench_clock_page*)idbench_trampoline_params.page;
  if (page == 0 || __atomic_load_n(&page->deadline_ns, __ATOMIC_RELAXED) == 0) return 0;
  return page;
}

static inline int64_t ns_of(int64_t sec, int64_t sub, int64_t sub_ns) {
  return sec * kNsPerSec + sub * sub_ns;
}

/* The page's view as idbench_clock_read gives it (read_view), or 0 when a write stays under way
 * past the page's deadline: a writer killed between its two seq stores leaves seq odd for ever,
 * and the dead man's switch (past the deadline, true time) must hold then too, instead of every
 * clock read of the target spinning. After a failed attempt the deadline is looked at, against
 * CLOCK_REALTIME_COARSE, at once (so that, once it has passed, a read costs one attempt and one
 * coarse read more) and every 1024th attempt. */
static __attribute__((noinline)) int read_view_retrying(const struct idbench_clock_page* page,
                                                        struct idbench_clock_view* view) {
  const clock_gettime_fn original = (clock_gettime_fn)idbench_trampoline_params.clock_gettime;
  for (uint32_t attempt = 1;; ++attempt) {
    if (attempt == 1 || (attempt & 1023u) == 0) {
      /* relaxed: the deadline read is the writer's last or its next; either way the way out
       * comes within one lease of the writer's death */
      const int64_t deadline = __atomic_load_n(&page->deadline_ns, __ATOMIC_RELAXED);
      struct k_timespec now;
      if (original(IDBENCH_CLOCK_REALTIME_COARSE, &now) != 0) return 0;
      if (deadline == 0 || ns_of(now.tv_sec, now.tv_nsec, 1) > deadline) return 0;
    }
    if (idbench_clock_try_read(page, view)) return 1;
  }
}

/* The first attempt inline: a write under way is rare. */
static inline int read_view(const struct idbench_clock_page* page,
                            struct idbench_clock_view* view) {
  return idbench_clock_try_read(page, view) || read_view_retrying(page, view);
}

/* Floor division, so a fake time before 1970 still has 0 <= tv_nsec < 1e9. */
static inline void split_ns(int64_t ns, int64_t* sec, int64_t* rem) {
  int64_t s = ns / kNsPerSec;
  int64_t r = ns % kNsPerSec;
  if (r < 0) {
    r += kNsPerSec;
    --s;
  }
  *sec = s;
  *rem = r;
}

static inline int is_realtime(int clock_id) {
  return clock_id == IDBENCH_CLOCK_REALTIME || clock_id == IDBENCH_CLOCK_REALTIME_COARSE;
}

static inline int is_moved_by_page(int clock_id) {
  switch (clock_id) {
    case IDBENCH_CLOCK_TAI:
    case IDBENCH_CLOCK_MONOTONIC:
    case IDBENCH_CLOCK_MONOTONIC_RAW:
    case IDBENCH_CLOCK_MONOTONIC_COARSE:
    case IDBENCH_CLOCK_BOOTTIME:
      return 1;
    default:
      return 0;
  }
}

/* The armed page applied to a clock_gettime result: out of the fast path (noinline), so that the
 * fast path saves only the registers it needs across the original call. */
static __attribute__((noinline)) void fake_timespec(const struct idbench_clock_page* page,
                                                    int clock_id, struct k_timespec* ts,
                                                    clock_gettime_fn original) {
  const int realtime = is_realtime(clock_id);
  struct idbench_clock_view view;
  if (!read_view(page, &view)) return;
  if (!realtime && clock_id != IDBENCH_CLOCK_TAI && !(view.flags & IDBENCH_CLOCK_MOVE_MONOTONIC)) {
    return; /* an NTP step leaves the monotonic clocks alone */
  }
  const int64_t true_ns = ns_of(ts->tv_sec, ts->tv_nsec, 1);
  int64_t true_realtime_ns = true_ns;
  if (!realtime) {
    /* the dead man's switch and TAI's offset are on true CLOCK_REALTIME */
    struct k_timespec rt;
    if (original(IDBENCH_CLOCK_REALTIME, &rt) != 0) return;
    true_realtime_ns = ns_of(rt.tv_sec, rt.tv_nsec, 1);
  }
  split_ns(idbench_fake_ns(&view, clock_id, true_ns, true_realtime_ns), &ts->tv_sec, &ts->tv_nsec);
}

HIDDEN int idbench_trampoline_clock_gettime(int clock_id, struct k_timespec* ts) {
  const clock_gettime_fn original = (clock_gettime_fn)idbench_trampoline_params.clock_gettime;
  const int rc = original(clock_id, ts);
  if (rc != 0 || (!is_realtime(clock_id) && !is_moved_by_page(clock_id))) return rc;
  const struct idbench_clock_page* page = armed_page();
  if (page != 0) fake_timespec(page, clock_id, ts, original);
  return rc;
}

HIDDEN int idbench_trampoline_gettimeofday(struct k_timeval* tv, struct k_timezone* tz) {
  const gettimeofday_fn original = (gettimeofday_fn)idbench_trampoline_params.gettimeofday;
  const int rc = original(tv, tz); /* fills tz as the kernel's does */
  if (rc != 0 || tv == 0) return rc;
  const struct idbench_clock_page* page = armed_page();
  struct idbench_clock_view view;
  if (page == 0 || !read_view(page, &view)) return rc;
  const int64_t true_ns = ns_of(tv->tv_sec, tv->tv_usec, 1000);
  int64_t rem = 0;
  split_ns(idbench_fake_ns(&view, IDBENCH_CLOCK_REALTIME, true_ns, true_ns), &tv->tv_sec, &rem);
  tv->tv_usec = rem / 1000;
  return rc;
}

/* Armed, time() reads CLOCK_REALTIME_COARSE instead of calling the original: the same seconds
 * the original returns (both read the realtime clock as of the last tick), plus the nanoseconds
 * a rate or a step of a fraction of a second needs to land on the right second. */
HIDDEN int64_t idbench_trampoline_time(int64_t* tloc) {
  const struct idbench_clock_page* page = armed_page();
  struct k_timespec ts;
  const clock_gettime_fn clock_gettime = (clock_gettime_fn)idbench_trampoline_params.clock_gettime;
  if (page == 0 || clock_gettime(IDBENCH_CLOCK_REALTIME_COARSE, &ts) != 0) {
    return ((time_fn)idbench_trampoline_params.time)(tloc);
  }
  struct idbench_clock_view view;
  const int64_t true_ns = ns_of(ts.tv_sec, ts.tv_nsec, 1);
  const int64_t fake_ns = read_view(page, &view)
                              ? idbench_fake_ns(&view, IDBENCH_CLOCK_REALTIME, true_ns, true_ns)
                              : true_ns;
  int64_t sec = 0;
  int64_t rem = 0;
  split_ns(fake_ns, &sec, &rem);
  if (tloc != 0) *tloc = sec;
  return sec;
}
