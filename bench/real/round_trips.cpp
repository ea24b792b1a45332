// round_trips.cpp — one cell of the real-system bench: T clients, each its own session, timed.
#include "bench/real/round_trips.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <fstream>
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
  std::uint64_t first_counted = 0;  // the index of its first counted request
  std::int64_t first_start = 0;     // 0: no counted request
  std::int64_t last_end = 0;
  std::string error;
  bool interrupted = false;
};

struct Shared {
  const CellPlan& plan;
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> t0{0};  // set by the barrier's completion: all sessions started
};

// Requests until the window has closed, each timed; the counted ones recorded.
void timed_requests(Session& session, Shared& sh, ClientRecord& rec) {
  const std::int64_t window_start = sh.t0.load() + sh.plan.warmup_ns;
  const std::int64_t window_end = window_start + sh.plan.duration_ns;
  for (std::uint64_t index = 0;
       !sh.stop.load(std::memory_order_relaxed) && !plumbing::interrupted(); ++index) {
    const std::int64_t start = plumbing::monotonic_ns();
    // Every client counts one request at least: one of 1,000 IDs, one INSERT each, can take
    // longer than the whole window.
    if (start >= window_end && rec.requests > 0) break;
    const std::uint64_t got = session.request(sh.plan.request_size);
    const std::int64_t end = plumbing::monotonic_ns();
    if (start < window_start) continue;
    rec.latency_ns.record(static_cast<std::uint64_t>(end - start));
    rec.ids += got;
    if (rec.requests++ == 0) {
      rec.first_counted = index;
      rec.first_start = start;
    }
    rec.last_end = end;
  }
}

template <class Barrier>
void run_client(const SessionFactory& make, int k, Shared& sh, Barrier& started,
                ClientRecord& rec) {
  bool arrived = false;
  try {
    const std::unique_ptr<Session> session = make(k);
    arrived = true;
    started.arrive_and_wait();
    timed_requests(*session, sh, rec);
  } catch (const plumbing::Interrupted&) {
    rec.interrupted = true;
  } catch (const std::exception& e) {
    rec.error = e.what();
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

// A client's program; its failures name the program as the user gave it, not the sh that
// captures its stderr.
class ProgramSession final : public Session {
 public:
  ProgramSession(const external::ExecSpec& wrapped, std::string given, std::uint64_t node_id)
      : wrapped_(wrapped.command), given_(std::move(given)) {
    try {
      program_ = std::make_unique<external::Program>(wrapped, node_id);
    } catch (const external::ProgramError& e) {
      throw external::ProgramError(external::unwrapped(e.what(), wrapped_, given_));
    }
  }
  std::uint64_t request(std::uint64_t n) override {
    ids_.clear();
    try {
      program_->request(n, ids_);
    } catch (const external::ProgramError& e) {
      throw external::ProgramError(external::unwrapped(e.what(), wrapped_, given_));
    }
    return ids_.size();
  }

 private:
  std::string wrapped_, given_;
  std::unique_ptr<external::Program> program_;
  std::vector<Id> ids_;
};

// The ns per answered request a program wrote to `path`; empty when it wrote none (or a line
// that is not a count of ns).
std::vector<std::uint64_t> read_times(const std::string& path) {
  std::vector<std::uint64_t> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.size() > 19 ||
        !std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return {};
    }
    out.push_back(std::stoull(line));
  }
  return out;
}

// The system's own share of the counted requests, or nullopt when a client's program did not
// time all of them.
std::optional<SystemSide> system_side(const std::vector<std::string>& paths,
                                      const std::vector<Counted>& counted,
                                      const std::vector<std::uint64_t>& ids_per_client) {
  SystemSide out;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (counted[k].count == 0) continue;
    const std::vector<std::uint64_t> ns = read_times(paths[k]);
    if (ns.size() < counted[k].first + counted[k].count) return std::nullopt;
    std::uint64_t total = 0;
    for (std::uint64_t i = counted[k].first; i < counted[k].first + counted[k].count; ++i) {
      out.latency_ns.record(ns[i]);
      total += ns[i];
    }
    if (total == 0) return std::nullopt;
    out.ids_per_s += static_cast<double>(ids_per_client[k]) * 1e9 / static_cast<double>(total);
  }
  if (out.latency_ns.count() == 0) return std::nullopt;
  return out;
}

}  // namespace

CellFigures measure_sessions(const SessionFactory& make, const CellPlan& plan,
                             std::vector<Counted>* counted) {
  check_plan(plan);
  Shared sh{plan};
  std::vector<ClientRecord> recs(static_cast<std::size_t>(plan.clients));
  auto on_all_started = [&sh]() noexcept { sh.t0.store(plumbing::monotonic_ns()); };
  std::barrier started(plan.clients, on_all_started);
  {
    std::vector<std::jthread> threads;
    for (int k = 0; k < plan.clients; ++k) {
      threads.emplace_back(
          [&, k] { run_client(make, k, sh, started, recs[static_cast<std::size_t>(k)]); });
    }
  }  // joined: every session has been closed (a program's summary line is written)
  if (std::any_of(recs.begin(), recs.end(), [](const ClientRecord& r) { return r.interrupted; })) {
    throw plumbing::Interrupted();
  }
  if (counted != nullptr) {
    counted->clear();
    for (const ClientRecord& r : recs) counted->push_back({r.first_counted, r.requests});
  }
  return summarize(plan, recs);
}

CellFigures measure_cell(const external::ExecSpec& spec, const CellPlan& plan) {
  check_plan(plan);
  plumbing::TempDir dir("idbench-realbench");
  std::vector<std::string> stderr_paths, times_paths;
  for (int k = 0; k < plan.clients; ++k) {
    stderr_paths.push_back(dir.path() + "/client-" + std::to_string(k) + ".stderr");
    times_paths.push_back(dir.path() + "/client-" + std::to_string(k) + ".times");
  }
  const SessionFactory make = [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    external::ExecSpec client_spec = external::capturing_stderr(spec, stderr_paths[i]);
    client_spec.env.push_back(std::string(kSystemTimesEnv) + "=" + times_paths[i]);
    return std::make_unique<ProgramSession>(client_spec, spec.command,
                                            plan.first_node_id + static_cast<std::uint64_t>(k));
  };
  std::vector<Counted> counted;
  CellFigures f = measure_sessions(make, plan, &counted);
  external::CapturedStderr captured;
  for (const std::string& path : stderr_paths) external::read_captured_stderr(path, captured);
  f.adapter_counters = std::move(captured.counters);
  f.stderr_lines = std::move(captured.lines);
  f.system_side = system_side(times_paths, counted, f.ids_per_client);
  return f;
}

}  // namespace idbench::realbench
