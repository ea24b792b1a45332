/* trampoline.h — what the vDSO trampoline (trampoline.c) and its patcher (vdso_patch.cpp) agree
 * on: the parameter block the patcher fills in a target, and, for C++, the blob the build
 * made of trampoline.c (a generated source in the build tree, trampoline_blob.cmake).
 *
 * The blob is position-independent code and data linked at address 0 (trampoline.ld) and copied
 * byte for byte into a target: its entry points and its parameter block are offsets in it.
 */
#ifndef IDBENCH_INJECT_TRAMPOLINE_H
#define IDBENCH_INJECT_TRAMPOLINE_H

#include <stdint.h>

/* "idbtramp" read little-endian: the patcher checks it at the parameter block's offset before it
 * writes there, so a blob and an offset from two different builds cannot be mixed. */
#define IDBENCH_TRAMPOLINE_MAGIC 0x706d617274626469ull

/* Filled by the patcher before any entry point is jumped to, never changed afterwards. */
struct idbench_trampoline_params {
  uint64_t magic;         /* IDBENCH_TRAMPOLINE_MAGIC, from the build */
  uint64_t clock_gettime; /* the relocated originals: a copy of each vDSO function's first */
  uint64_t gettimeofday;  /* instructions, then a jump back to the rest of it */
  uint64_t time;
  uint64_t page; /* the target's read-only mapping of the clock page (clock_page.h) */
};

#ifdef __cplusplus
#include <cstddef>

namespace idbench::inject::trampoline {

extern const unsigned char kBlob[];
extern const std::size_t kBlobSize;
/* Offsets in kBlob. */
extern const std::size_t kClockGettime;
extern const std::size_t kGettimeofday;
extern const std::size_t kTime;
extern const std::size_t kParams;

}  // namespace idbench::inject::trampoline
#endif

#endif
