#include "chaos/matrix.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "chaos/driver.hpp"
#include "chaos/leftovers.hpp"
#include "chaos/process.hpp"
#include "chaos/raw_time.hpp"
#include "chaos/report.hpp"
#include "chaos/scenario.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct Cell {
  std::string scenario;
  std::string variant;
  std::string policy;
  bool persist = false;
  std::int64_t duration_ms = 0;
};

std::string minutes(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

void write_atomically(const std::string& path, const json& doc) {
  const std::string temp = fmt::format("{}.tmp-{}", path, ::getpid());
  {
    std::ofstream out(temp);
    out << doc.dump(1) << "\n";
    if (!out) throw Error(fmt::format("cannot write {}", temp));
  }
  fs::rename(temp, path);
}

}  // namespace

std::vector<std::string> default_matrix_variants(bool quick) {
  if (quick) return {"cas", "uuidv7"};
  return {"mutex", "cas", "thread-local", "uuidv7"};
}

int run_matrix(const MatrixConfig& cfg, std::FILE* progress) {
  if (cfg.out_path.empty()) throw Error("the matrix needs --out FILE");
  const double scale = cfg.time_scale > 0 ? cfg.time_scale : (cfg.quick ? 0.5 : 1.0);
  const std::vector<std::string> variants =
      cfg.variants.empty() ? default_matrix_variants(cfg.quick) : cfg.variants;
  std::vector<std::string> policies = cfg.policies;
  if (policies.empty()) {
    for (const auto& p : policy_catalog()) policies.emplace_back(p.name);
  }
  std::vector<const Scenario*> chosen;
  if (cfg.scenarios.empty()) {
    for (const auto& s : scenarios()) chosen.push_back(&s);
  } else {
    for (const auto& name : cfg.scenarios) {
      const Scenario* s = find_scenario(name);
      if (s == nullptr) throw Error(fmt::format("unknown scenario '{}'", name));
      chosen.push_back(s);
    }
  }

  std::vector<Cell> cells;
  for (const Scenario* s : chosen) {
    const std::int64_t ms = scaled(*s, scale).duration_ms;
    for (bool persist : {false, true}) {
      if (persist && !(s->restarts && cfg.persist_restart)) continue;
      for (const auto& v : variants) {
        for (const auto& p : policies) cells.push_back({std::string(s->name), v, p, persist, ms});
      }
    }
  }

  json doc;
  doc["context"] = context_json(cfg.commit);
  doc["config"] = {{"quick", cfg.quick},     {"time_scale", scale},       {"nodes", cfg.nodes},
                   {"threads", cfg.threads}, {"rate_per_node", cfg.rate}, {"variants", variants},
                   {"policies", policies},   {"cells", cells.size()}};
  doc["complete"] = false;
  doc["cells"] = json::array();
  fs::create_directories(fs::absolute(cfg.out_path).parent_path());

  std::int64_t planned_ms = 0;
  for (const auto& c : cells) planned_ms += c.duration_ms;
  if (progress != nullptr) {
    fmt::print(progress,
               "chaos matrix: {} cells ({} scenarios × {} variants × {} policies{}), {} nodes × "
               "{} threads at {:.0f} IDs/s per node; ~{} of scenario time\n",
               cells.size(), chosen.size(), variants.size(), policies.size(),
               std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return c.persist; })
                   ? ", restart also with --persist"
                   : "",
               cfg.nodes, cfg.threads, cfg.rate, minutes(planned_ms / 1000.0));
  }

  InterruptGuard guard;  // between cells too: a signal stops the matrix with chaos.json whole
  const std::int64_t began = mono_ns();
  double overhead_s = 0;  // measured wall time beyond the scenario's own duration
  int failures = 0;
  std::size_t total_ids = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    throw_if_interrupted();
    const Cell& c = cells[i];
    RunConfig rc;
    rc.scenario = c.scenario;
    rc.variant = c.variant;
    rc.policy = c.policy;
    rc.nodes = cfg.nodes;
    rc.threads = cfg.threads;
    rc.rate = cfg.rate;
    rc.time_scale = scale;
    rc.node_binary = cfg.node_binary;
    std::string persist_dir;
    if (c.persist) {
      persist_dir = rc.persist_dir = make_owned_temp_dir("idbench-chaos-mark");
    }
    const std::string label = fmt::format("{}{} · {} · {}", c.scenario,
                                          c.persist ? " (persist)" : "", c.variant, c.policy);
    if (progress != nullptr) {
      fmt::print(progress, "[{:>3}/{}] {:<52} {:>4.1f} s … ", i + 1, cells.size(), label,
                 c.duration_ms / 1000.0);
      std::fflush(progress);
    }
    json cell;
    const std::int64_t cell_began = mono_ns();
    try {
      const RunResult r = run_chaos(rc, nullptr);
      cell = to_json(r, /*with_timeline=*/true);
      total_ids += r.analysis.ids;
      if (!r.verdict.promise_kept) ++failures;
      if (progress != nullptr) {
        fmt::print(
            progress,
            "{:>7} IDs  dup {:<6} ref {:<7} avail {:>5.1f}%  stall {:>6.0f} ms  "
            "k-sort {:>6.0f} ms  {}",
            r.analysis.ids, r.analysis.duplicates, r.analysis.refusals,
            100 * r.analysis.availability, r.analysis.max_stall_ms, r.analysis.ksort_bound_ms,
            r.verdict.promise_kept ? (r.analysis.duplicates > 0 ? "caught" : "kept") : "BROKEN");
      }
    } catch (const NotApplicable& e) {
      cell = {{"scenario", c.scenario}, {"variant", c.variant}, {"policy", c.policy},
              {"persist", c.persist},   {"nodes", cfg.nodes},   {"skipped", e.what()},
              {"promise_kept", nullptr}};
      if (progress != nullptr) fmt::print(progress, "skipped: {}", e.what());
    } catch (const Interrupted&) {
      if (!persist_dir.empty()) fs::remove_all(persist_dir);
      throw;
    } catch (const std::exception& e) {
      ++failures;
      cell = {{"scenario", c.scenario}, {"variant", c.variant}, {"policy", c.policy},
              {"persist", c.persist},   {"nodes", cfg.nodes},   {"error", e.what()},
              {"promise_kept", nullptr}};
      if (progress != nullptr) fmt::print(progress, "ERROR: {}", e.what());
    }
    if (!persist_dir.empty()) fs::remove_all(persist_dir);
    const double cell_s = static_cast<double>(mono_ns() - cell_began) / 1e9;
    overhead_s += cell_s - c.duration_ms / 1000.0;
    doc["cells"].push_back(std::move(cell));
    doc["cells_done"] = i + 1;
    write_atomically(cfg.out_path, doc);
    if (progress != nullptr) {
      std::int64_t left_ms = 0;
      for (std::size_t j = i + 1; j < cells.size(); ++j) left_ms += cells[j].duration_ms;
      const double left_s = left_ms / 1000.0 + overhead_s / (i + 1) * (cells.size() - i - 1);
      fmt::print(progress, "  | {} elapsed, ~{} left\n",
                 minutes(static_cast<double>(mono_ns() - began) / 1e9), minutes(left_s));
      std::fflush(progress);
    }
  }
  doc["complete"] = true;
  doc["summary"] = {{"cells", cells.size()},
                    {"promises_broken_or_failed", failures},
                    {"ids", total_ids},
                    {"wall_seconds", static_cast<double>(mono_ns() - began) / 1e9}};
  write_atomically(cfg.out_path, doc);
  if (progress != nullptr) {
    fmt::print(progress, "chaos matrix: {} cells, {} IDs, {} broken or failed, in {}; wrote {}\n",
               cells.size(), total_ids, failures,
               minutes(static_cast<double>(mono_ns() - began) / 1e9), cfg.out_path);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace idbench::chaos
