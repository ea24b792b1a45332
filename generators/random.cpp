// random.cpp — CSPRNG bytes from a per-thread buffer of OpenSSL DRBG output (random.hpp).
#include "generators/random.hpp"

#include <openssl/err.h>
#include <openssl/rand.h>
#include <pthread.h>

#include <array>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

namespace idbench {
namespace {

// Bumped in every forked child. Relaxed: the child handler runs in the only thread the child
// has, before any code of the child can read it.
std::atomic<std::uint64_t> fork_generation{0};

void on_fork_child() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, on_fork_child);
  return true;
}();

struct RandomBuffer {
  static constexpr std::size_t kBytes = 4096;
  std::array<std::uint8_t, kBytes> bytes;
  std::size_t used = kBytes;
  std::uint64_t generation = 0;

  void refill() {
    if (RAND_bytes(bytes.data(), static_cast<int>(kBytes)) != 1) {
      // Only when the DRBG cannot be seeded (no entropy source): never hand out weak bytes.
      throw std::runtime_error("RAND_bytes failed: OpenSSL's DRBG could not be seeded: " +
                               std::string(ERR_error_string(ERR_get_error(), nullptr)));
    }
    used = 0;
    generation = fork_generation.load(std::memory_order_relaxed);
  }
};

thread_local RandomBuffer buffer;

}  // namespace

void fill_random(void* out, std::size_t n) {
  (void)fork_handler_installed;
  auto* dst = static_cast<std::uint8_t*>(out);
  if (buffer.generation != fork_generation.load(std::memory_order_relaxed)) {
    buffer.used = RandomBuffer::kBytes;  // inherited across fork: never reuse
  }
  while (n > 0) {
    if (buffer.used == RandomBuffer::kBytes) buffer.refill();
    const std::size_t take = std::min(n, RandomBuffer::kBytes - buffer.used);
    std::memcpy(dst, buffer.bytes.data() + buffer.used, take);
    // Bytes handed out are wiped, so a core dump or a later fork cannot replay them.
    std::memset(buffer.bytes.data() + buffer.used, 0, take);
    buffer.used += take;
    dst += take;
    n -= take;
  }
}

namespace {

// fill_random for one word, without its loop and its calls to memcpy and memset: a load and a
// store of zeros when the buffer holds the word and is this process's.
template <class Word>
Word take_word() {
  RandomBuffer& b = buffer;
  if (b.used <= RandomBuffer::kBytes - sizeof(Word) &&
      b.generation == fork_generation.load(std::memory_order_relaxed)) [[likely]] {
    Word v;
    std::memcpy(&v, b.bytes.data() + b.used, sizeof v);
    std::memset(b.bytes.data() + b.used, 0, sizeof v);  // wiped, as fill_random does
    b.used += sizeof v;
    return v;
  }
  Word v;
  fill_random(&v, sizeof v);
  return v;
}

}  // namespace

std::uint32_t random_u32() { return take_word<std::uint32_t>(); }
std::uint64_t random_u64() { return take_word<std::uint64_t>(); }

}  // namespace idbench
