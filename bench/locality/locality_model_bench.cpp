// The model's insert speed on one core: sequential and uniform random BIGINT and UUIDv4-like
// 128-bit keys, 2 M each. Prints M inserts/s (a 3 M-row matrix
// stream must stay a matter of seconds).
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include "bench/locality/innodb_model.hpp"
#include "generators/id.hpp"

using namespace idbench;
using namespace idbench::locality;

// Thread CPU time: on a shared 2-core machine (parallel compiles) wall time measures the
// neighbours; CPU time is what one core spends on the model.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Speed {
  double wall = 0, cpu = 0;
};

template <class Key>
Speed inserts_per_s(const std::vector<Key>& keys, int key_bytes, bool batch) {
  Speed best;
  for (int rep = 0; rep < 3; ++rep) {  // best of 3
    InnodbModel<Key> model({.key_bytes = key_bytes});
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = cpu_seconds();
    if (batch) {
      const auto fresh = std::make_unique<bool[]>(keys.size());
      model.insert_batch(keys.data(), keys.size(), fresh.get());
    } else {
      for (const auto& k : keys) model.insert(k);
    }
    const double cpu = cpu_seconds() - cpu0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best.wall = std::max(best.wall, static_cast<double>(keys.size()) / wall);
    best.cpu = std::max(best.cpu, static_cast<double>(keys.size()) / cpu);
  }
  return best;
}

template <class Key>
void report(const char* name, const std::vector<Key>& keys, int key_bytes) {
  for (const bool batch : {false, true}) {
    const Speed s = inserts_per_s(keys, key_bytes, batch);

    fmt::print("{:<18} {:<12} {:6.2f} M inserts/CPU-s   ({:.2f} M/s wall)\n", name,
               batch ? "insert_batch" : "insert", s.cpu / 1e6, s.wall / 1e6);
  }
}

int main() {
  constexpr std::size_t kN = 2'000'000;
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> seq(kN), rnd(kN);
  std::vector<Key128> uuid(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    seq[i] = i + 1;
    rnd[i] = rng();
    uuid[i] = Key128{rng()} << 64 | rng();
  }
  report("sequential bigint", seq, 8);
  report("random bigint", rnd, 8);
  report("random binary16", uuid, 16);
}
