// round_trips.cpp — one cell of the real-system bench: T clients, each its own program, timed.
#include "bench/real/round_trips.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <thread>

#include "external/stderr_capture.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::realbench {
namespace {

// What one client thread records; written by its thread only, read after the join.
struct alignas(64) ClientRecord {
  bench::LatencyHistogram latency_ns;
  std::uint64_t ids = 0;
  std::uint64_t requests = 0;
  std::int64_t first_start = 0;  // 0: no counted request
  std::int64_t last_end = 0;
  std::string error;
  bool interrupted = false;
};

struct Shared {
  const CellPlan& plan;
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> t0{0};  // set by the barrier's completion: all programs started
};

template <class Barrier>
void run_client(const external::ExecSpec& spec, const std::string& given, Shared& sh,
                Barrier& started, ClientRecord& rec, std::uint64_t node_id) {
  bool arrived = false;
  try {
    external::Program program(spec, node_id);
    arrived = true;
    started.arrive_and_wait();
    const std::int64_t window_start = sh.t0.load() + sh.plan.warmup_ns;
    const std::int64_t window_end = window_start + sh.plan.duration_ns;
    std::vector<Id> ids;
    ids.reserve(sh.plan.request_size);
    while (!sh.stop.load(std::memory_order_relaxed) && !plumbing::interrupted()) {
      const std::int64_t start = plumbing::monotonic_ns();
      // Every client counts one request at least: one of 1,000 IDs, one INSERT each, can take
      // longer than the whole window.
      if (start >= window_end && rec.requests > 0) break;
      program.request(sh.plan.request_size, ids);
      const std::int64_t end = plumbing::monotonic_ns();
      if (start >= window_start) {
        rec.latency_ns.record(static_cast<std::uint64_t>(end - start));
        rec.ids += ids.size();
        ++rec.requests;
        if (rec.first_start == 0) rec.first_start = start;
        rec.last_end = end;
      }
      ids.clear();
    }
  } catch (const plumbing::Interrupted&) {
    rec.interrupted = true;
  } catch (const std::exception& e) {
    rec.error = external::unwrapped(e.what(), spec.command, given);
  }
  if (!arrived) started.arrive_and_drop();
  if (rec.interrupted || !rec.error.empty() || plumbing::interrupted()) {
    rec.interrupted = rec.interrupted || plumbing::interrupted();
    sh.stop.store(true);
  }
}

void check_plan(const CellPlan& plan) {
  if (plan.clients < 1) throw Error("real bench: clients must be at least 1");
  if (plan.request_size < 1 || plan.request_size > external::kMaxRequest) {
    throw Error("real bench: a request asks for 1.." + std::to_string(external::kMaxRequest) +
                " IDs, not " + std::to_string(plan.request_size));
  }
  if (plan.warmup_ns < 0 || plan.duration_ns <= 0) {
    throw Error("real bench: the warm-up must not be negative and the duration must be positive");
  }
}

CellFigures summarize(const CellPlan& plan, const std::vector<ClientRecord>& recs) {
  CellFigures f;
  f.clients = plan.clients;
  f.request_size = plan.request_size;
  std::int64_t first = 0, last = 0;
  for (const ClientRecord& r : recs) {
    f.latency_ns.merge(r.latency_ns);
    f.ids += r.ids;
    f.requests += r.requests;
    f.ids_per_client.push_back(r.ids);
    if (!r.error.empty()) {
      ++f.failed_clients;
      if (f.error.empty()) f.error = r.error;
    }
    if (r.requests == 0) continue;
    first = first == 0 ? r.first_start : std::min(first, r.first_start);
    last = std::max(last, r.last_end);
  }
  if (last > first) f.seconds = static_cast<double>(last - first) / 1e9;
  return f;
}

}  // namespace

CellFigures measure_cell(const external::ExecSpec& spec, const CellPlan& plan) {
  check_plan(plan);
  plumbing::TempDir dir("idbench-realbench");
  Shared sh{plan};
  std::vector<ClientRecord> recs(static_cast<std::size_t>(plan.clients));
  auto on_all_started = [&sh]() noexcept { sh.t0.store(plumbing::monotonic_ns()); };
  std::barrier started(plan.clients, on_all_started);
  std::vector<std::string> stderr_paths;
  {
    std::vector<std::jthread> threads;
    for (int k = 0; k < plan.clients; ++k) {
      stderr_paths.push_back(dir.path() + "/client-" + std::to_string(k) + ".stderr");
      const external::ExecSpec client_spec =
          external::capturing_stderr(spec, stderr_paths.back());
      threads.emplace_back([&, client_spec, k] {
        run_client(client_spec, spec.command, sh, started, recs[static_cast<std::size_t>(k)],
                   plan.first_node_id + static_cast<std::uint64_t>(k));
      });
    }
  }  // joined: every program has been closed, so its summary line is written
  if (std::any_of(recs.begin(), recs.end(), [](const ClientRecord& r) { return r.interrupted; })) {
    throw plumbing::Interrupted();
  }
  CellFigures f = summarize(plan, recs);
  external::CapturedStderr captured;
  for (const std::string& path : stderr_paths) external::read_captured_stderr(path, captured);
  f.adapter_counters = std::move(captured.counters);
  f.stderr_lines = std::move(captured.lines);
  return f;
}

}  // namespace idbench::realbench
