#include "bench/register.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <atomic>
#include <barrier>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "bench/baselines.hpp"
#include "bench/counting_clock.hpp"
#include "bench/floors.hpp"
#include "bench/gbench_output.hpp"
#include "bench/measure.hpp"
#include "bench/plant.hpp"
#include "bench/sampler.hpp"
#include "bench/summary.hpp"
#include "bench/ticks.hpp"
#include "generators/reference.hpp"
#include "generators/registry.hpp"

namespace idbench::bench {
namespace {

// What the threads of one registered benchmark share. It lives as long as the process;
// each run (Google Benchmark calls the function again for every iteration count it tries and
// every repetition) starts from a fresh generator and fresh per-thread results.
class RunFixture {
 public:
  explicit RunFixture(int threads) : barrier_(threads) {}
  std::barrier<>& barrier() { return barrier_; }

  // Written by thread 0 before the opening barrier, read by all threads after it.
  std::unique_ptr<Generator> generator;
  std::string error;
  std::vector<ThreadResult> results;
  // baseline/fetch_add's shared word, alone on its cache line like the variants' state words.
  alignas(64) std::atomic<std::uint64_t> counter{0};

 private:
  std::barrier<> barrier_;
};

RunFixture& new_fixture(int threads) {
  static std::deque<std::unique_ptr<RunFixture>> fixtures;
  fixtures.push_back(std::make_unique<RunFixture>(threads));
  return *fixtures.back();
}

enum class Floor { no_clock, clock_once };

// The floors' ledgers (floors.hpp), by floor and thread count: a floor's runs write, the
// variants' runs read. Only thread 0 of a run touches them, after its closing barrier; the
// runs follow one another, and the mutex keeps that true under any run order.
class FloorLedgers {
 public:
  void record(Floor floor, int threads, std::uint64_t iterations, double ns) {
    const std::lock_guard lock(mu_);
    ledgers_[{floor, threads}].record(iterations, ns);
  }
  std::optional<double> median(Floor floor, int threads) const {
    const std::lock_guard lock(mu_);
    const auto it = ledgers_.find({floor, threads});
    return it == ledgers_.end() ? std::nullopt : it->second.median();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::pair<Floor, int>, FloorLedger> ledgers_;
};

FloorLedgers& floor_ledgers() {
  static FloorLedgers ledgers;
  return ledgers;
}

// How a run is summarised and labelled.
struct RunSpec {
  IdModel model;
  bool load = false;
  double offered_per_s = 0;
  std::string label;  // empty: none
  std::optional<Floor> floor;  // this run is that floor: its ns per ID goes to the ledger
  bool above_floors = false;   // this run's cost above each floor goes into its counters

  // Load mode: each of `threads` threads sends once per `threads / offered rate` seconds.
  double load_period_s(int threads) const { return load ? threads / offered_per_s : 0; }
};

// A floor's run goes into its ledger; a variant's run gets its cost above each floor measured
// so far at its thread count (none when that floor did not run).
void account_floors(const RunSpec& spec, const benchmark::State& state, RunSummary& s) {
  FloorLedgers& ledgers = floor_ledgers();
  if (spec.floor && s.ns_per_id) {
    ledgers.record(*spec.floor, state.threads(), static_cast<std::uint64_t>(state.max_iterations),
                   *s.ns_per_id);
  }
  if (spec.above_floors) {
    s.above_no_clock_ns = above_floor(s.ns_per_id, ledgers.median(Floor::no_clock, state.threads()));
    s.above_clock_once_ns =
        above_floor(s.ns_per_id, ledgers.median(Floor::clock_once, state.threads()));
  }
}

// One run on this thread. Thread 0 prepares it (`prepare(fixture)`), every thread measures
// into its own ThreadResult (`measure(state, options, fixture, result)`), thread 0 summarises and
// sets the counters. A failure anywhere is recorded with SkipWithError, never by aborting the run.
template <class Prepare, class Measure>
void run(benchmark::State& state, RunFixture& fx, const RunSpec& spec, Prepare&& prepare,
         Measure&& measure) {
  const TickCalibration& ticks = calibration();
  const int me = state.thread_index();
  if (me == 0) {
    fx.results.assign(static_cast<std::size_t>(state.threads()), ThreadResult{});
    fx.error.clear();
    try {
      prepare(fx);
    } catch (const std::exception& e) {
      fx.error = e.what();
    }
  }
  // Opening barrier: thread 0's preparation (arrive) happens-before every thread's use of the
  // fixture (return from wait); std::barrier synchronises its arrivals with its waiters.
  fx.barrier().arrive_and_wait();
  ThreadResult& mine = fx.results[static_cast<std::size_t>(me)];
  MeasureOptions options{
      .count_waits = spec.model.counts_waits,
      .mean_gap = mean_gap_for(static_cast<std::uint64_t>(state.max_iterations)),
      .sampler_seed = ticks_begin() ^ (static_cast<std::uint64_t>(me) + 1) * 0x9E3779B97F4A7C15u,
      .period_ticks = spec.load_period_s(state.threads()) * 1e9 * ticks.ticks_per_ns,
      .yield_while_early =
          static_cast<unsigned>(state.threads()) > std::thread::hardware_concurrency(),
  };
  if (!fx.error.empty()) {
    state.SkipWithError(fx.error.c_str());
  } else {
    try {
      measure(state, options, fx, mine);
    } catch (const std::exception& e) {
      // Leaving the loop early is allowed once the error is recorded.
      state.SkipWithError(e.what());
    }
  }
  // Closing barrier: pairs with the one above; every thread's result is complete before
  // thread 0 reads them.
  fx.barrier().arrive_and_wait();
  if (me != 0) return;
  if (!state.error_occurred()) {
    RunSummary summary = summarize(fx.results, spec.model, ticks, /*with_service=*/spec.load);
    account_floors(spec, state, summary);
    report_counters(state, summary,
                    spec.load ? std::optional<double>(spec.offered_per_s) : std::nullopt);
  }
  if (!spec.label.empty()) state.SetLabel(spec.label.c_str());
  fx.generator.reset();
}

// The one clock every time-based generator in the bench reads.
std::shared_ptr<Clock> bench_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<CountingWallClock>();
  return clock;
}

enum class Mode { generate, load };

using Factory = std::function<std::unique_ptr<Generator>(const GeneratorOptions&)>;

// A benchmark of a generator built by `make` with the bench clock and `layout`: thread 0 of
// every run builds a fresh one, outside the timing.
void register_generator(const std::string& name, const Factory& make, const Layout& layout,
                        const RunSpec& spec, int threads) {
  GeneratorOptions opts;
  opts.layout = layout;
  opts.clock = bench_clock();
  RunFixture& fx = new_fixture(threads);
  benchmark::RegisterBenchmark(name.c_str(), [&fx, spec, opts, make](benchmark::State& state) {
    run(
        state, fx, spec, [&](RunFixture& f) { f.generator = make(opts); },
        [&](benchmark::State& st, const MeasureOptions& options, RunFixture& f, ThreadResult& out) {
          Generator* gen = f.generator.get();
          const auto next = [gen] { return gen->next(); };
          with_time_of(spec.model, [&](auto time_of) {
            if (spec.load) {
              measure_load(st, next, time_of, options, out);
            } else {
              measure_generate(st, next, time_of, options, out);
            }
          });
        });
  })->Threads(threads);
}

void register_variant(const Variant& v, const Layout& layout, int threads, Mode mode,
                      const BenchConfig& config) {
  const RunSpec spec{.model = id_model_of(v, layout),
                     .load = mode == Mode::load,
                     .offered_per_s = config.load_rate_per_s,
                     .label = v.uses_layout ? "" : "layout unused",
                     .floor = std::nullopt,
                     .above_floors = mode == Mode::generate};  // load runs have no ns per ID
  const std::string name =
      fmt::format("{}/{}/{}", mode == Mode::generate ? "generate" : "load", v.name, layout.name());
  // The factory, wrapped with the planted work when this is the planted variant (plant.hpp).
  auto make = [make = v.make, variant = v.name](const GeneratorOptions& o) {
    return plant(make(o), variant);
  };
  register_generator(name, make, layout, spec, threads);
}

// The floors (generators/reference.hpp), before any variant so that their ledgers are filled
// when the variants run. They read the bench clock or none; their IDs carry no time the bench
// reads. The first two run at every thread count. The last two, the floors under the two
// shared-state commits (a mutex, a CAS), run at 1 thread only: uncontended, they are what the
// commit itself costs; contended, a bare commit in a loop queues differently from a design
// that does work between commits, so they would bound nothing. They keep no ledger: a
// variant's cost above them is read off the report, beside them.
void register_floors(const BenchConfig& config) {
  const Layout unused = GeneratorOptions{}.layout;
  for (const auto& [name, make, floor, every_count] :
       {std::tuple{"floor/no-clock", &make_no_clock_floor, std::optional{Floor::no_clock}, true},
        std::tuple{"floor/clock-once", &make_clock_once_floor, std::optional{Floor::clock_once},
                   true},
        std::tuple{"floor/clock-once+mutex", &make_clock_once_lock_floor, std::optional<Floor>{},
                   false},
        std::tuple{"floor/clock-once+cas", &make_clock_once_cas_floor, std::optional<Floor>{},
                   false}}) {
    RunSpec spec;
    spec.model = {.id_time = IdTime::none, .layout = std::nullopt, .counts_waits = true};
    spec.floor = floor;
    for (int threads : config.threads) {
      if (every_count || threads == 1) register_generator(name, make, unused, spec, threads);
    }
  }
}

// Twitter's original mutex shape, the clock read under the lock: a bench-only reference line
// beside `mutex`, generate mode only. It issues Snowflake IDs, so its model is a layout's and
// its cap ratio means what a variant's does.
void register_references(const BenchConfig& config) {
  for (const Layout& layout : config.layouts) {
    RunSpec spec;
    spec.model = {.id_time = IdTime::layout, .layout = layout, .counts_waits = true};
    spec.above_floors = true;
    for (int threads : config.threads) {
      register_generator(fmt::format("reference/clock-under-lock-mutex/{}", layout.name()),
                         make_clock_under_lock_mutex, layout, spec, threads);
    }
  }
}

// A baseline: `make_next(fixture)` gives this thread's callable, built outside the timing.
template <class MakeNext>
benchmark::internal::Benchmark* register_baseline(const std::string& name, int threads,
                                                  MakeNext make_next) {
  RunFixture& fx = new_fixture(threads);
  return benchmark::RegisterBenchmark(name.c_str(), [&fx, make_next](benchmark::State& state) {
    run(
        state, fx, RunSpec{}, [](RunFixture&) {},
        [&](benchmark::State& st, const MeasureOptions& options, RunFixture& f, ThreadResult& out) {
          auto next = make_next(f);
          measure_generate(st, next, NoIdTime{}, options, out);
        });
  });
}

void register_baselines(const BenchConfig& config) {
  register_baseline("baseline/clock_gettime", 1,
                    [](RunFixture&) { return [] { return baseline::clock_gettime_realtime(); }; });
  for (int threads : config.threads) {
    register_baseline("baseline/fetch_add", threads, [](RunFixture& f) {
      return [&counter = f.counter] { return baseline::fetch_add(counter); };
    })->Threads(threads);
  }
  register_baseline("baseline/libuuid_random", 1,
                    [](RunFixture&) { return [] { return baseline::libuuid_random(); }; });
  register_baseline("baseline/libuuid_time", 1,
                    [](RunFixture&) { return [] { return baseline::libuuid_time(); }; });
  register_baseline("baseline/boost_random", 1,
                    [](RunFixture&) { return baseline::BoostRandom{}; });
}

}  // namespace

void register_benchmarks(const BenchConfig& config) {
  register_baselines(config);
  register_floors(config);
  register_references(config);
  for (Mode mode : {Mode::generate, Mode::load}) {
    for (const Layout& layout : config.layouts) {
      for (const Variant& v : variants()) {
        for (int threads : config.threads) register_variant(v, layout, threads, mode, config);
      }
    }
  }
}

}  // namespace idbench::bench
