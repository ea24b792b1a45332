// summary.hpp — what one bench thread records during a run (`ThreadResult`), and the numbers
// a whole run comes to once every thread is done (`RunSummary`). Pure: no timing, no output.
//
// The measuring loops (measure.hpp) write one ThreadResult per thread; `summarize` merges them
// after the run; gbench_output.hpp turns a RunSummary into Google Benchmark counters.
//
// Thread safety: a ThreadResult is written by its own thread only; `summarize` runs after all
// of them have finished (the run's closing barrier orders the writes before it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "bench/cap.hpp"
#include "bench/histogram.hpp"
#include "bench/ticks.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"

namespace idbench::bench {

// One thread's record of one run. Aligned to its own cache lines so that threads recording
// side by side never share a line (avoid false sharing).
struct alignas(64) ThreadResult {
  // Generate mode: ticks from just before the call to just after it. Load mode: from the
  // call's *intended* send time, so time spent behind schedule counts (no coordinated omission).
  LatencyHistogram latency;
  // Load mode only: from the call's actual start to its end (the service time).
  LatencyHistogram service;
  TickSpan span;  // the IDs' own timestamps, when they carry one
  std::uint64_t calls = 0;
  std::uint64_t waited_calls = 0;  // calls during which the generator spun for the clock
  std::uint64_t start_ticks = 0;   // start of the first call
  std::uint64_t end_ticks = 0;     // end of the last call
  Id first_id{};
  Id last_id{};
};
static_assert(sizeof(ThreadResult) % 64 == 0 && alignof(ThreadResult) == 64,
              "each thread's result starts and ends on a cache-line boundary");

// How a run's IDs tell time, and whether their format has a cap: read from the variant's
// description (`Variant::id_time`), never probed from its IDs.
//   IdTime::layout   a 64-bit Snowflake-family layout: spans count ticks, capped per node id
//   IdTime::uuidv7   (or any other time-carrying form) spans count Unix ms, via unix_ms_of();
//                    no cap worth the name
//   IdTime::none     counters, UUIDv4, baselines: no rate by the IDs' own clock
struct IdModel {
  IdTime id_time = IdTime::none;
  std::optional<Layout> layout;  // the layout the generator was built with; set unless none
  bool counts_waits = false;     // a generator built with the bench clock (not a baseline)
};

// The model of a variant's IDs under `layout`, from its description alone.
IdModel id_model_of(const Variant& v, const Layout& layout);

struct Percentiles {
  double p50_ns = 0;
  double p99_ns = 0;
  double p999_ns = 0;
  double max_ns = 0;
};

struct RunSummary {
  std::uint64_t ids = 0;
  double seconds = 0;  // wall span: earliest call start to latest call end, all threads
  // IDs per second. For IDs that carry their time: interior IDs ÷ interior ticks, by the IDs'
  // own clock (exact counts over whole ticks, so it cannot exceed the format cap); for the
  // others, and for runs too short to have an interior tick: ids_per_s_wall.
  double ids_per_s = 0;
  double ids_per_s_wall = 0;  // ids ÷ seconds: the same rate on the TSC, partial ticks included
  // Generate mode: CPU-thread time per ID, threads × seconds ÷ ids (floors.hpp).
  std::optional<double> ns_per_id;
  // ns_per_id above each floor's, measured in the same process at the same thread count: set
  // by the bench after `summarize` when the floor ran (floors.hpp).
  std::optional<double> above_no_clock_ns;
  std::optional<double> above_clock_once_ns;
  std::optional<double> cap_ratio;  // achieved ÷ cap for the node ids seen
  std::optional<double> cap_per_s;  // that cap, IDs per second
  std::optional<std::uint64_t> nodes_used;
  std::optional<double> wait_ratio;   // waited calls ÷ calls
  std::uint64_t latency_samples = 0;  // timed calls behind the percentiles
  Percentiles latency;
  std::optional<Percentiles> service;  // load mode
};

// Percentiles of a histogram of ticks, in ns.
Percentiles percentiles_ns(const LatencyHistogram& h, const TickCalibration& ticks);

// Precondition: at least one thread made a call. `with_service` reports `service` (load mode).
RunSummary summarize(std::span<const ThreadResult> threads, const IdModel& model,
                     const TickCalibration& ticks, bool with_service);

}  // namespace idbench::bench
