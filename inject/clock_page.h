/* clock_page.h — the page a faked clock is read from: idbench writes it, and every process
 * whose clock it fakes maps it read-only and reads it on each clock read (the vDSO trampoline
 * and the raw-syscall handler apply the same function, idbench_fake_ns, so the two paths cannot
 * disagree). C, so the freestanding trampoline compiles it; C++ includes it as is.
 *
 * The model is chaos's machine clock (chaos/faketime.hpp's ClockModel): a line through an
 * anchor, fake(t) = anchor_fake + rate·(t − anchor_true), t being true CLOCK_REALTIME. A step
 * moves the anchor, a slew or a leap-second smear changes the rate, a pause is rate 0, a repeated
 * second is a step back of one second. The rate is fixed point (rate_q32 = rate × 2^32): no
 * floating point runs in a target, whose calling convention may not expect its vector
 * registers to change (Go keeps a zero in X15).
 *
 * The dead man's switch: once true CLOCK_REALTIME passes `deadline_ns`, a target reads true time
 * again, whatever the page says. idbench keeps pushing the deadline forward while it runs; if it
 * dies, even by SIGKILL, the targets' clocks come back within one deadline, with no tracer left
 * to undo anything. A deadline of 0 means the page is not armed: true time.
 *
 * Writing (one writer, idbench): seq is made odd, the fields are written, seq is made even
 * again, each a release store; a reader retries while seq is odd or changed under it (a
 * seqlock), so it never reads half of an update.
 *
 * MONOTONIC and BOOTTIME do not move with an NTP step. Only when `flags` has
 * IDBENCH_CLOCK_MOVE_MONOTONIC (a VM pause: the guest's monotonic clocks jump too) is
 * `monotonic_offset_ns` added to CLOCK_MONOTONIC, _COARSE, _RAW and CLOCK_BOOTTIME.
 */
#ifndef IDBENCH_INJECT_CLOCK_PAGE_H
#define IDBENCH_INJECT_CLOCK_PAGE_H

#include <stdint.h>

/* 128-bit products for the rate; __extension__ keeps -Wpedantic quiet in C and C++. */
__extension__ typedef __int128 idbench_i128;

#define IDBENCH_CLOCK_PAGE_MAGIC 0x6b636f6c63626469ull /* "idbclock" read little-endian */
#define IDBENCH_CLOCK_PAGE_VERSION 1u
#define IDBENCH_CLOCK_MOVE_MONOTONIC 1u

struct idbench_clock_page {
  uint64_t magic;   /* IDBENCH_CLOCK_PAGE_MAGIC once initialised */
  uint32_t version; /* IDBENCH_CLOCK_PAGE_VERSION */
  uint32_t seq;     /* seqlock: odd while the writer is between its two stores */
  uint32_t flags;   /* IDBENCH_CLOCK_MOVE_MONOTONIC */
  uint32_t reserved;
  int64_t deadline_ns;    /* true CLOCK_REALTIME after which the page is ignored; 0: unarmed */
  int64_t anchor_true_ns; /* the line fake(t) = anchor_fake + rate·(t − anchor_true) */
  int64_t anchor_fake_ns;
  int64_t rate_q32;            /* rate × 2^32; 1.0 is 1 << 32, 0 freezes the clock */
  int64_t monotonic_offset_ns; /* with IDBENCH_CLOCK_MOVE_MONOTONIC */
};

/* One consistent copy of the fields a read needs. */
struct idbench_clock_view {
  uint32_t flags;
  int64_t deadline_ns;
  int64_t anchor_true_ns;
  int64_t anchor_fake_ns;
  int64_t rate_q32;
  int64_t monotonic_offset_ns;
};

/* One attempt of idbench_clock_read: 1 with *v filled when no write was under way, else 0. A
 * reader that must not wait for ever (the vDSO trampoline: a writer killed between its two seq
 * stores leaves seq odd) loops over it with its own way out. */
static inline int idbench_clock_try_read(const struct idbench_clock_page* p,
                                         struct idbench_clock_view* v) {
  /* acquire: the fields read below are the ones written before this even seq */
  const uint32_t s0 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
  if (s0 & 1u) return 0;
  /* Acquire loads, not a fence (ThreadSanitizer does not model fences): seq is read again
   * after them and cannot be hoisted above any, and a field the writer has already changed was
   * stored with release after the odd seq, so that seq is visible to the second read below. On
   * x86-64 each is a plain load. */
  v->flags = __atomic_load_n(&p->flags, __ATOMIC_ACQUIRE);
  v->deadline_ns = __atomic_load_n(&p->deadline_ns, __ATOMIC_ACQUIRE);
  v->anchor_true_ns = __atomic_load_n(&p->anchor_true_ns, __ATOMIC_ACQUIRE);
  v->anchor_fake_ns = __atomic_load_n(&p->anchor_fake_ns, __ATOMIC_ACQUIRE);
  v->rate_q32 = __atomic_load_n(&p->rate_q32, __ATOMIC_ACQUIRE);
  v->monotonic_offset_ns = __atomic_load_n(&p->monotonic_offset_ns, __ATOMIC_ACQUIRE);
  return __atomic_load_n(&p->seq, __ATOMIC_RELAXED) == s0;
}

static inline struct idbench_clock_view idbench_clock_read(const struct idbench_clock_page* p) {
  struct idbench_clock_view v;
  while (!idbench_clock_try_read(p, &v)) {
  }
  return v;
}

/* Clock ids (linux/time.h), spelled here so the trampoline needs no system header. */
enum {
  IDBENCH_CLOCK_REALTIME = 0,
  IDBENCH_CLOCK_MONOTONIC = 1,
  IDBENCH_CLOCK_MONOTONIC_RAW = 4,
  IDBENCH_CLOCK_REALTIME_COARSE = 5,
  IDBENCH_CLOCK_MONOTONIC_COARSE = 6,
  IDBENCH_CLOCK_BOOTTIME = 7,
  IDBENCH_CLOCK_TAI = 11
};

/* What a process whose true clock `clock_id` reads `true_ns` sees, given the page's view and
 * the true CLOCK_REALTIME `true_realtime_ns` (the same value for a realtime read). */
static inline int64_t idbench_fake_ns(const struct idbench_clock_view* v, int clock_id,
                                      int64_t true_ns, int64_t true_realtime_ns) {
  if (v->deadline_ns == 0 || true_realtime_ns > v->deadline_ns) return true_ns;
  switch (clock_id) {
    case IDBENCH_CLOCK_REALTIME:
    case IDBENCH_CLOCK_REALTIME_COARSE:
    case IDBENCH_CLOCK_TAI: {
      /* TAI moves with a step of the realtime clock; its offset to realtime is kept */
      const idbench_i128 scaled = (idbench_i128)(true_realtime_ns - v->anchor_true_ns) * v->rate_q32;
      const int64_t fake_realtime = v->anchor_fake_ns + (int64_t)(scaled >> 32);
      return true_ns + (fake_realtime - true_realtime_ns);
    }
    case IDBENCH_CLOCK_MONOTONIC:
    case IDBENCH_CLOCK_MONOTONIC_RAW:
    case IDBENCH_CLOCK_MONOTONIC_COARSE:
    case IDBENCH_CLOCK_BOOTTIME:
      return (v->flags & IDBENCH_CLOCK_MOVE_MONOTONIC) ? true_ns + v->monotonic_offset_ns
                                                       : true_ns;
    default:
      return true_ns;
  }
}

#endif
