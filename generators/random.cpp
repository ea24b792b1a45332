// random.cpp — CSPRNG bytes from a per-thread buffer of OpenSSL DRBG output (random.hpp).
#include "generators/random.hpp"

#include <openssl/err.h>
#include <openssl/rand.h>
#include <pthread.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

namespace idbench {
namespace {

struct RandomBuffer {
  static constexpr std::size_t kBytes = 4096;
  // All zero to begin with, so a thread's buffer is constant-initialised: a take needs no check
  // that it has been constructed. The bytes not yet handed out are the first `left`; a take
  // hands out the last `n` of them.
  std::array<std::uint8_t, kBytes> bytes{};
  std::size_t left = 0;

  std::uint8_t* last(std::size_t n) { return bytes.data() + left - n; }
  void refill() {
    if (RAND_bytes(bytes.data(), static_cast<int>(kBytes)) != 1) {
      // Only when the DRBG cannot be seeded (no entropy source): never hand out weak bytes.
      throw std::runtime_error("RAND_bytes failed: OpenSSL's DRBG could not be seeded: " +
                               std::string(ERR_error_string(ERR_get_error(), nullptr)));
    }
    left = kBytes;
  }
};

thread_local RandomBuffer buffer;

// A forked child runs in one thread, the one that called fork: its buffer, a copy of the
// parent's, is wiped and emptied before any code of the child can take from it. The parent's
// other threads do not exist in the child, and a thread the child starts gets a new (zero)
// buffer.
void on_fork_child() {
  buffer.bytes.fill(0);
  buffer.left = 0;
}

const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, on_fork_child);
  return true;
}();

}  // namespace

void fill_random(void* out, std::size_t n) {
  (void)fork_handler_installed;
  auto* dst = static_cast<std::uint8_t*>(out);
  while (n > 0) {
    if (buffer.left == 0) buffer.refill();
    const std::size_t take = std::min(n, buffer.left);
    std::memcpy(dst, buffer.last(take), take);
    // Bytes handed out are wiped, so a core dump or a later fork cannot replay them.
    std::memset(buffer.last(take), 0, take);
    buffer.left -= take;
    dst += take;
    n -= take;
  }
}

namespace {

// fill_random for `kN` bytes read by `read(bytes)`, without its loop and its calls to memcpy and
// memset: loads, stores of zeros and one branch when the buffer holds the bytes.
template <std::size_t kN, class Read>
auto take_random(Read read) {
  RandomBuffer& b = buffer;
  if (b.left >= kN) [[likely]] {
    std::uint8_t* bytes = b.last(kN);
    const auto v = read(bytes);
    std::memset(bytes, 0, kN);  // wiped, as fill_random does
    b.left -= kN;
    return v;
  }
  std::array<std::uint8_t, kN> bytes;
  fill_random(bytes.data(), kN);
  return read(bytes.data());
}

template <class Word>
Word read_word(const std::uint8_t* bytes) {
  Word v;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

}  // namespace

std::uint32_t random_u32() { return take_random<4>(read_word<std::uint32_t>); }
std::uint64_t random_u64() { return take_random<8>(read_word<std::uint64_t>); }
Random80 random_80() {
  return take_random<10>([](const std::uint8_t* bytes) {
    return Random80{read_word<std::uint64_t>(bytes), read_word<std::uint16_t>(bytes + 8)};
  });
}

}  // namespace idbench
