// idbench-bench — throughput and per-call latency of every registered ID generator under
// contention, with the baselines a C++ user would pick instead. A Google Benchmark binary:
// its standard flags work (--benchmark_filter, --benchmark_repetitions, --benchmark_out, …),
// plus the idbench flags below. bench/run_bench.sh runs the quick and full profiles.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/gbench_output.hpp"
#include "bench/plant.hpp"
#include "bench/register.hpp"
#include "bench/ticks.hpp"
#include "generators/layout.hpp"

namespace {

constexpr const char* kUsage =
    "idbench-bench flags (besides Google Benchmark's, listed after):\n"
    "  --idbench_layouts=twitter,wide   layouts of the generate/ and load/ benchmarks\n"
    "  --idbench_threads=1,2,4,8        thread counts of generate/, load/, baseline/fetch_add\n"
    "  --idbench_load_rate=1000000      total offered rate of load/ benchmarks, IDs/s\n"
    "The JSON context records the commit (plumbing/run_context.hpp: the one this build\n"
    "compiled, or IDBENCH_COMMIT / IDBENCH_DIRTY) and every variant's description.\n";

struct Flags {
  std::string layouts = "twitter,wide";
  std::string threads = "1,2,4,8";
  double load_rate = 1e6;
};

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    parts.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

// Takes the --idbench_* flags out of argv (Google Benchmark's own were taken by Initialize).
// Throws std::invalid_argument on a bad value.
Flags take_flags(int& argc, char** argv) {
  Flags f;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value_of = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.substr(0, flag.size()) != flag || arg.size() == flag.size() ||
          arg[flag.size()] != '=') {
        return std::nullopt;
      }
      return arg.substr(flag.size() + 1);
    };
    if (auto v = value_of("--idbench_layouts")) {
      f.layouts = *v;
    } else if (auto v = value_of("--idbench_threads")) {
      f.threads = *v;
    } else if (auto v = value_of("--idbench_load_rate")) {
      f.load_rate = std::stod(std::string(*v));
      if (!(f.load_rate > 0)) throw std::invalid_argument("--idbench_load_rate must be > 0");
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(kUsage, stdout);
  }
  benchmark::Initialize(&argc, argv);
  idbench::bench::BenchConfig config;
  Flags flags;
  try {
    flags = take_flags(argc, argv);
    for (const std::string& name : split(flags.layouts)) {
      config.layouts.push_back(idbench::Layout::parse(name));
    }
    for (const std::string& t : split(flags.threads)) {
      int n = 0;
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (ec != std::errc() || end != t.data() + t.size() || n < 1) {
        throw std::invalid_argument(fmt::format("--idbench_threads: bad thread count '{}'", t));
      }
      config.threads.push_back(n);
    }
    config.load_rate_per_s = flags.load_rate;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "idbench-bench: %s\n%s", e.what(), kUsage);
    return 2;
  }
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  const idbench::bench::TickCalibration& ticks = idbench::bench::calibration();
  idbench::bench::add_context({.load_rate_per_s = config.load_rate_per_s,
                               .layouts = config.layouts,
                               .ticks = &ticks});
  // A build with a planted slowdown (bench/plant.hpp) says so in every result it writes.
  if (const std::string plant = idbench::bench::plant_description(); !plant.empty()) {
    benchmark::AddCustomContext("idbench_plant", plant);
  }
  idbench::bench::register_benchmarks(config);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
