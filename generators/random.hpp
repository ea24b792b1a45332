// random.hpp — cryptographically secure random bits for UUIDs (RFC 9562 §6.9), cheaply.
//
// OpenSSL's DRBG (RAND_bytes: NIST SP 800-90A CTR_DRBG on AES-256, seeded and reseeded from
// the kernel's getrandom(2), per-thread instances) drawn in 4 KiB blocks into a per-thread
// buffer. A UUIDv7 takes 4 bytes per ID, so the block amortises to ~1.5 ns per ID; the kernel
// in the same blocks (getrandom, its ChaCha20 CSPRNG behind a syscall) cost ~7 µs per 4 KiB,
// ~7 ns per ID, and 12 ns of a 67 ns UUIDv7 (perf). Both are CSPRNGs: the DRBG's output
// is unpredictable without its state, which the kernel seeds (§6.9: "unguessable"); the cost is
// one dependency (libssl-dev), and a key in this process's memory, as any user-space CSPRNG has.
//
// Fork safety: a child inherits a copy of the parent's buffer and would replay the parent's
// bytes. A pthread_atfork child handler wipes and empties the buffer of the child's one thread
// before the child can take from it. (OpenSSL reseeds its own DRBG in a forked child.)
//
// Thread safety: thread-safe (each thread has its own buffer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace idbench {

void fill_random(void* out, std::size_t bytes);
// One word of the same bytes (also wiped once handed out), without fill_random's loop.
std::uint32_t random_u32();
std::uint64_t random_u64();

// 10 bytes in one take, as one word and a half word: the 74 random bits of a UUIDv7 with no
// counter (rand_a and rand_b), rounded up to whole bytes, where two words would draw 16.
struct Random80 {
  std::uint64_t word;
  std::uint16_t half;
};
Random80 random_80();

}  // namespace idbench
