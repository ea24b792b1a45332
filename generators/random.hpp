// random.hpp — cryptographically secure random bits for UUIDs (RFC 9562 §6.9), cheaply.
//
// Kernel randomness (getrandom(2), the kernel's ChaCha20 CSPRNG) drawn in 4 KiB blocks into a
// per-thread buffer: one syscall per 4 KiB instead of per ID brings the cost of 8 random bytes
// from ~366 ns to a few ns (BRIEF §4). We prefer this to OpenSSL's DRBG: same cost once
// buffered, no extra dependency, and the kernel reseeds for us.
//
// Fork safety: a child inherits a copy of the parent's buffer and would replay the parent's
// bytes. A pthread_atfork child handler bumps a generation number; a buffer from an older
// generation is discarded before use.
//
// Thread safety: thread-safe (each thread has its own buffer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace idbench {

void fill_random(void* out, std::size_t bytes);
std::uint64_t random_u64();

}  // namespace idbench
