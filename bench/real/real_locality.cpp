// real_locality.cpp — a real system's IDs, from C clients in arrival order, through the InnoDB
// model (real_locality.hpp).
#include "bench/real/real_locality.hpp"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::realbench {
namespace {

// What the clients share while they collect.
struct Collect {
  explicit Collect(const LocalityPlan& plan)
      : left(static_cast<std::int64_t>(plan.rows)),
        deadline_ns(plumbing::monotonic_ns() +
                    static_cast<std::int64_t>(plan.max_seconds * 1e9)) {}
  // IDs still to ask for; a client takes one before each request. Relaxed: it only counts.
  std::atomic<std::int64_t> left;
  const std::int64_t deadline_ns;
  // A client failed or a signal came: the others stop too. Sequentially consistent: it is
  // read once per request, and only its value matters (no data is published through it).
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<Id> keys;               // in arrival order; guarded by mu
  std::optional<IdWidth> width;       // of the first ID; guarded by mu
  std::string error;                  // the first failure; guarded by mu
  bool interrupted = false;           // guarded by mu
};

void run_client(const external::ExecSpec& spec, const std::string& given, Collect& c,
                std::uint64_t node_id) {
  bool failed = false;
  try {
    external::Program program(spec, node_id);
    std::vector<Id> got;
    while (!c.stop.load() && !plumbing::interrupted()) {
      if (plumbing::monotonic_ns() >= c.deadline_ns) break;
      if (c.left.fetch_sub(1, std::memory_order_relaxed) <= 0) break;
      got.clear();
      program.request(1, got);
      std::lock_guard<std::mutex> lock(c.mu);
      c.keys.insert(c.keys.end(), got.begin(), got.end());
      if (!c.width) c.width = program.width();
    }
  } catch (const plumbing::Interrupted&) {
    std::lock_guard<std::mutex> lock(c.mu);
    c.interrupted = true;
  } catch (const std::exception& e) {
    failed = true;
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.error.empty()) c.error = external::unwrapped(e.what(), spec.command, given);
  }
  if (plumbing::interrupted()) {
    std::lock_guard<std::mutex> lock(c.mu);
    c.interrupted = true;
  }
  if (plumbing::interrupted() || failed) c.stop.store(true);
}

// The model's figures for the keys, as a table keyed by them (their width decides the type),
// key-only into f.metrics and at each other payload into f.at_payloads.
void model_into(LocalityFigures& f, std::vector<Id> keys, IdWidth width, int clients,
                const std::vector<int>& payloads) {
  locality::KeyStream stream;
  stream.width = width;
  stream.keys = std::move(keys);
  stream.description = fmt::format("real IDs from {} client{}, in arrival order", clients,
                                   clients == 1 ? "" : "s");
  locality::TableSpec table;
  table.key_type = locality::default_key_type(width);
  const auto engine = locality::make_model_engine();
  f.metrics = engine->run(stream, table);
  for (const int payload : payloads) {
    if (payload == 0) continue;
    table.payload_bytes = payload;
    f.at_payloads.emplace_back(payload, engine->run(stream, table));
  }
}

}  // namespace

LocalityFigures measure_locality(const external::ExecSpec& spec, const LocalityPlan& plan) {
  if (plan.clients < 1) throw Error("real locality: clients must be at least 1");
  if (plan.rows < 1) throw Error("real locality: rows must be at least 1");
  plumbing::TempDir dir("idbench-reallocality");
  Collect c(plan);
  c.keys.reserve(static_cast<std::size_t>(plan.rows));
  std::vector<std::string> stderr_paths;
  const std::int64_t start = plumbing::monotonic_ns();
  {
    std::vector<std::jthread> threads;
    for (int k = 0; k < plan.clients; ++k) {
      stderr_paths.push_back(fmt::format("{}/client-{}.stderr", dir.path(), k));
      threads.emplace_back([&, k, client = external::capturing_stderr(spec, stderr_paths.back())] {
        run_client(client, spec.command, c, plan.first_node_id + static_cast<std::uint64_t>(k));
      });
    }
  }  // joined: every program has exited, its summary line written
  if (c.interrupted) throw plumbing::Interrupted();
  LocalityFigures f;
  f.clients = plan.clients;
  f.planned_rows = plan.rows;
  f.rows = c.keys.size();
  f.seconds = static_cast<double>(plumbing::monotonic_ns() - start) / 1e9;
  f.error = c.error;
  external::CapturedStderr captured;
  for (const std::string& path : stderr_paths) external::read_captured_stderr(path, captured);
  f.adapter_counters = std::move(captured.counters);
  f.stderr_lines = std::move(captured.lines);
  if (!f.error.empty() || c.keys.empty()) {
    if (f.error.empty()) f.error = "no ID arrived";
    return f;
  }
  if (f.rows < f.planned_rows) {
    f.note = fmt::format("stopped at the {:g} s cap: {} of {} IDs", plan.max_seconds, f.rows,
                         f.planned_rows);
  }
  const IdWidth width = c.width.value_or(spec.width.value_or(IdWidth::bits64));
  model_into(f, std::move(c.keys), width, plan.clients, plan.payloads);
  return f;
}

}  // namespace idbench::realbench
