// plant.hpp — a planted slowdown, to measure what the regression gate catches.
//
// Off in every normal build. Configure with
//     cmake -DIDBENCH_PLANT_VARIANT=<variant> -DIDBENCH_PLANT_LOOPS=<n> ...
// and the bench (idbench-bench) and the instruction counter (idbench-icount) wrap that
// variant's generator so that every next() first runs `n` rounds of fixed work: a dependent
// multiply-add chain the compiler cannot drop or vectorise (2 instructions and 4 cycles a
// round, plus an lfence so that the chain's latency is paid, not overlapped). The variant is named by the person configuring the build, never by the harness.
// bench/gate_plant.sh measures what a given `n` costs in time and in instructions.
//
// Thread safety: the wrapper is as thread-safe as the generator it wraps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "generators/generator.hpp"

#ifndef IDBENCH_PLANT_VARIANT
#define IDBENCH_PLANT_VARIANT ""
#endif
#ifndef IDBENCH_PLANT_LOOPS
#define IDBENCH_PLANT_LOOPS 0
#endif

namespace idbench::bench {

inline constexpr std::string_view kPlantVariant = IDBENCH_PLANT_VARIANT;
inline constexpr unsigned kPlantLoops = IDBENCH_PLANT_LOOPS;

// "cas: 12 rounds of fixed work per next()", or empty when nothing is planted.
inline std::string plant_description() {
  if (kPlantVariant.empty() || kPlantLoops == 0) return {};
  return std::string(kPlantVariant) + ": " + std::to_string(kPlantLoops) +
         " rounds of fixed work per next()";
}

inline void planted_work(unsigned rounds) {
  std::uint64_t x = rounds;
  for (unsigned i = 0; i < rounds; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;  // Knuth's MMIX LCG step
    asm volatile("" : "+r"(x));                           // keeps every round
  }
  asm volatile("" : : "r"(x));
#if defined(__x86_64__)
  // Without a fence the out-of-order core runs the chain beside the generator's own work and
  // hides it (measured: 8 rounds cost uuidv7 under 1 %); lfence waits for it to finish.
  if (rounds != 0) asm volatile("lfence" : : : "memory");
#endif
}

class PlantedGenerator final : public Generator {
 public:
  explicit PlantedGenerator(std::unique_ptr<Generator> inner) : inner_(std::move(inner)) {
    set_name(inner_->name());
  }
  Id next() override {
    planted_work(kPlantLoops);
    return inner_->next();
  }
  IdWidth width() const override { return inner_->width(); }
  std::string format() const override { return inner_->format(); }

 private:
  std::unique_ptr<Generator> inner_;
};

// `gen` itself, or `gen` wrapped with the planted work when `variant` is the planted one.
inline std::unique_ptr<Generator> plant(std::unique_ptr<Generator> gen, std::string_view variant) {
  if (kPlantLoops == 0 || variant != kPlantVariant) return gen;
  return std::make_unique<PlantedGenerator>(std::move(gen));
}

}  // namespace idbench::bench
