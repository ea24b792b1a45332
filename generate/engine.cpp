// engine.cpp — `idbench generate`'s engine: IDs from T threads, timed apart from writing them.
#include "generate/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <latch>
#include <memory>
#include <optional>
#include <thread>

#include "generate/sink.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::generate {
namespace {

// IDs issued per timed chunk: 16 Ki IDs is 256 KiB per thread, and ~100 µs between clock reads.
constexpr std::uint64_t kChunk = std::uint64_t{1} << 14;

using Steady = std::chrono::steady_clock;
using Generators = std::vector<std::unique_ptr<Generator>>;

// What the threads share for one run.
struct Shared {
  Sink& sink;
  std::latch start;  // the threads and the caller: issuing starts when all have arrived
  // Set when a thread failed (not refused): the others stop at their next chunk. Relaxed: it
  // is only a hint to stop; the outcomes are published to the caller's thread by join().
  std::atomic<bool> stop{false};
};

struct WorkerState {
  ThreadOutcome outcome;
  std::exception_ptr error;  // anything but a refusal or a program failure: rethrown after join
};

void run_worker(unsigned thread, std::uint64_t share, Generator& gen, Shared& shared,
                WorkerState& state) {
  ThreadOutcome& r = state.outcome;
  std::vector<Id> chunk;
  chunk.reserve(static_cast<std::size_t>(std::min(share, kChunk)));
  std::string bytes;
  shared.start.arrive_and_wait();
  try {
    while (r.issued < share && !shared.stop.load(std::memory_order_relaxed)) {
      const std::uint64_t n = std::min(kChunk, share - r.issued);
      chunk.clear();
      const auto began = Steady::now();
      try {
        for (std::uint64_t i = 0; i < n; ++i) chunk.push_back(gen.next());
      } catch (const ClockError& e) {
        r.refusal = e.what();
      } catch (const external::ProgramError& e) {
        r.program_error = e.what();
        shared.stop.store(true, std::memory_order_relaxed);
      }
      r.issue_seconds += std::chrono::duration<double>(Steady::now() - began).count();
      r.issued += chunk.size();
      shared.sink.write(thread, chunk, bytes);  // what was issued is written, even after a refusal
      if (!r.refusal.empty() || !r.program_error.empty()) break;
    }
  } catch (...) {
    state.error = std::current_exception();
    shared.stop.store(true, std::memory_order_relaxed);
  }
}

void check_options(const GenerateOptions& o) {
  if (o.variant.empty() == !o.exec.has_value()) {
    throw Error("give either a variant or an exec program, not both or neither");
  }
  if (o.threads == 0) throw Error("generate needs at least 1 thread");
  if (o.count > kMaxCount) {
    throw Error(fmt::format("a count of {} IDs is over the limit of {}", o.count, kMaxCount));
  }
}

// The generator of each thread: the variant's one, shared; or per thread t a program instance
// of its own with node id generator.node + t, so that thread t's IDs always come from that id.
Generators make_generators(const GenerateOptions& o) {
  Generators gens;
  if (!o.exec) {
    gens.push_back(make_generator(o.variant, o.generator));
    return gens;
  }
  const Variant program = external::exec_variant(*o.exec);
  GeneratorOptions opts = o.generator;
  for (unsigned t = 0; t < o.threads; ++t) {
    opts.node = o.generator.node + t;
    gens.push_back(program.make(opts));
  }
  return gens;
}

// Starts one thread per state, lets them issue, joins them all; returns when issuing started.
Steady::time_point run_workers(const GenerateOptions& o, const Generators& gens, Sink& sink,
                               std::vector<WorkerState>& states) {
  Shared shared{.sink = sink, .start = std::latch(o.threads + 1)};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < o.threads; ++t) {
    const std::uint64_t share = o.count / o.threads + (t < o.count % o.threads);
    Generator& gen = *gens[gens.size() == 1 ? 0 : t];
    workers.emplace_back(run_worker, t, share, std::ref(gen), std::ref(shared),
                         std::ref(states[t]));
  }
  const auto began = Steady::now();
  shared.start.arrive_and_wait();
  for (auto& w : workers) w.join();
  return began;
}

GenerateResult summarize(std::vector<WorkerState>& states, double wall_seconds) {
  GenerateResult result;
  result.wall_seconds = wall_seconds;
  for (WorkerState& s : states) {
    const ThreadOutcome& r = s.outcome;
    result.issued += r.issued;
    result.issue_seconds = std::max(result.issue_seconds, r.issue_seconds);
    if (result.program_error.empty()) result.program_error = r.program_error;
    if (result.refusal.empty()) result.refusal = r.refusal;
    result.threads.push_back(std::move(s.outcome));
  }
  return result;
}

}  // namespace

GenerateResult run_generate(const GenerateOptions& options) {
  check_options(options);
  // A signal kills the programs `exec` started and unwinds with Interrupted.
  std::optional<plumbing::InterruptGuard> guard;
  if (options.exec) guard.emplace();
  const Generators gens = make_generators(options);
  Sink sink({.out = options.out,
             .out_dir = options.out_dir,
             .threads = options.threads,
             .format = options.format,
             .width = gens.front()->width()});
  std::vector<WorkerState> states(options.threads);
  const Steady::time_point began = run_workers(options, gens, sink, states);
  for (const WorkerState& s : states) {
    if (s.error) std::rethrow_exception(s.error);  // the Sink abandons every output
  }
  sink.commit();
  return summarize(states, std::chrono::duration<double>(Steady::now() - began).count());
}

}  // namespace idbench::generate
