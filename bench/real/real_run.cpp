// real_run.cpp — the real-system bench over a plan: servers per setting, cells one at a time.
#include "bench/real/real_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <sstream>

#include "bench/locality/validate.hpp"
#include "bench/real/direct.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/comma_list.hpp"

namespace idbench::realbench {
namespace {

// One (target, setting): the cells that share a server start.
struct Group {
  const Target* target;
  std::optional<real::ServerSettings> settings;
  bool last = true;  // the target's last setting (its locality pass runs there)
};

// A target's durability settings: its server kind's values in the plan.
std::vector<real::ServerSettings> settings_of(const RunPlan& plan, real::ServerKind kind) {
  std::vector<real::ServerSettings> out;
  if (kind == real::ServerKind::mariadb) {
    for (int flush : plan.flush) {
      real::ServerSettings s;
      s.mariadb.flush_log_at_trx_commit = flush;
      s.mariadb.binlog = plan.binlog;
      out.push_back(s);
    }
  } else if (kind == real::ServerKind::postgres) {
    for (const std::string& sync : plan.synchronous_commit) {
      real::ServerSettings s;
      s.postgres.synchronous_commit = sync;
      out.push_back(s);
    }
  } else if (kind == real::ServerKind::redis) {
    for (const real::RedisPersistence p : plan.redis_persistence) {
      real::ServerSettings s;
      s.redis.persistence = p;
      out.push_back(s);
    }
  }
  return out;
}

std::vector<Group> groups_of(const RunPlan& plan) {
  std::vector<Group> out;
  for (const Target& t : plan.targets) {
    if (t.system == nullptr || t.system->servers == 0) {
      out.push_back({&t, std::nullopt});
      continue;
    }
    for (const real::ServerSettings& s : settings_of(plan, t.system->server_kind)) {
      if (!out.empty() && out.back().target == &t) out.back().last = false;
      out.push_back({&t, s});
    }
  }
  return out;
}

std::string setting_text(const Group& g) {
  return g.settings ? " " + real::durability_label(g.target->system->server_kind, *g.settings) : "";
}

// The hop costs microseconds a round trip: a second holds tens of thousands of them.
constexpr std::int64_t kHopMaxNs = 1'000'000'000;

std::string us(std::uint64_t ns) { return fmt::format("{:.0f} us", static_cast<double>(ns) / 1e3); }

std::string figures_text(double ids_per_s, const bench::LatencyHistogram& h) {
  return fmt::format("{:.0f} IDs/s, p50 {}, p99 {}", ids_per_s, us(h.value_at_quantile(0.5)),
                     us(h.value_at_quantile(0.99)));
}

// The lines a measured cell shows: end to end, the system's own share, the direct client.
std::vector<std::string> cell_lines(const CellFigures& f,
                                    const std::optional<CellFigures>& direct) {
  std::vector<std::string> out;
  if (!f.error.empty()) return {"error: " + f.error};
  out.push_back(fmt::format("{:.0f} IDs/s, {} requests, p99 {} us", f.ids_per_s(), f.requests,
                            f.latency_ns.value_at_quantile(0.99) / 1000));
  if (f.system_side) {
    out.push_back("the system's own (timed inside the adapter): " +
                  figures_text(f.system_side->ids_per_s, f.system_side->latency_ns));
  }
  if (direct) {
    out.push_back(direct->error.empty()
                      ? "direct client: " + figures_text(direct->ids_per_s(), direct->latency_ns)
                      : "direct client: error: " + direct->error);
  }
  return out;
}

// The adapter's arguments of a MariaDB system ("ticket-pair --engine myisam"), as words.
std::vector<std::string> scheme_args(const real::RealSystem& s) {
  std::istringstream in(s.exec.command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (!words.empty()) words.erase(words.begin());
  return words;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// Runs a group's cells, the servers (if any) up for all of them.
class GroupRunner {
 public:
  GroupRunner(const RunPlan& plan, RunRecord& record,
              const std::function<void(const RunRecord&)>& on_cell, std::int64_t started_ns)
      : plan_(plan), record_(record), on_cell_(on_cell), started_ns_(started_ns) {}

  void run(const Group& g) {
    CellRecord base;
    base.system = g.target->name;
    base.description = g.target->system;
    base.settings = g.settings;
    std::unique_ptr<real::RunningSystem> running;
    external::ExecSpec spec = g.target->exec;
    std::string failed;
    if (g.target->system != nullptr) {
      try {
        running = std::make_unique<real::RunningSystem>(
            *g.target->system, g.settings.value_or(real::ServerSettings{}));
        spec = running->exec_spec();
        base.server = running->describe();
        direct_sockets_.clear();
        for (real::Server* s : running->servers()) direct_sockets_.push_back(s->socket());
      } catch (const plumbing::Interrupted&) {
        throw;
      } catch (const real::ServerMissing& e) {
        record_.missing_tool = true;
        failed = fmt::format("{} did not start: {}", g.target->name, e.what());
      } catch (const std::exception& e) {
        failed = fmt::format("{} did not start: {}", g.target->name, e.what());
      }
    }
    base.command = spec.command;
    for (int clients : plan_.clients) {
      for (std::uint64_t size : plan_.requests) cell(g, base, spec, clients, size, failed);
    }
    if (plan_.locality_rows > 0 && last_setting(g)) {
      for (int clients : plan_.locality_clients) locality(g, spec, clients, failed);
    }
  }

  // The harness's hop at one client count and request size (RunPlan::hop).
  void hop(int clients, std::uint64_t size) {
    plumbing::throw_if_interrupted();
    progress(fmt::format("real: harness hop, the null adapter (no system), {} client{}, {} {}",
                         clients, clients == 1 ? "" : "s", size,
                         size == 1 ? "ID/request" : "IDs/request"));
    CellRecord rec;
    rec.system = "harness hop";
    const external::ExecSpec spec = real::null_adapter_spec();
    rec.command = spec.command;
    rec.figures = measure_cell(spec, {.clients = clients,
                                      .request_size = size,
                                      .warmup_ns = plan_.warmup_ns,
                                      .duration_ns = std::min(plan_.duration_ns, kHopMaxNs)});
    for (const std::string& line : cell_lines(rec.figures, std::nullopt)) progress("  " + line);
    record_.hop.push_back(std::move(rec));
    on_cell_(record_);
  }

 private:
  void cell(const Group& g, const CellRecord& base, const external::ExecSpec& spec, int clients,
            std::uint64_t size, const std::string& failed) {
    plumbing::throw_if_interrupted();
    const std::size_t i = record_.cells.size() + 1;
    progress(fmt::format("real: [{}/{}] {}{}, {} client{}, {} ID{}/request", i, record_.planned,
                         g.target->name, setting_text(g), clients, clients == 1 ? "" : "s",
                         size, size == 1 ? "" : "s"));
    CellRecord rec = base;
    const CellPlan cp{.clients = clients, .request_size = size, .warmup_ns = plan_.warmup_ns,
                      .duration_ns = plan_.duration_ns};
    const bool direct = plan_.direct && rec.description &&
                        rec.description->server_kind == real::ServerKind::mariadb;
    if (failed.empty() && direct) {
      // Half the direct client's window just before the cell, half just after it.
      CellPlan half = cp;
      half.duration_ns = std::max<std::int64_t>(1, cp.duration_ns / 2);
      const std::vector<std::string> args = scheme_args(*rec.description);
      const CellFigures before = measure_direct(args, direct_sockets_, half);
      rec.figures = measure_cell(spec, cp);
      rec.direct = combined(before, measure_direct(args, direct_sockets_, half));
    } else if (failed.empty()) {
      rec.figures = measure_cell(spec, cp);
    } else {
      rec.figures.clients = clients;
      rec.figures.request_size = size;
      rec.figures.error = failed;
    }
    for (const std::string& line : rec.figures.stderr_lines) progress("  stderr: " + line);
    for (const std::string& line : cell_lines(rec.figures, rec.direct)) progress("  " + line);
    record_.cells.push_back(std::move(rec));
    on_cell_(record_);
  }

  static bool last_setting(const Group& g) { return g.last; }

  void locality(const Group& g, const external::ExecSpec& spec, int clients,
                const std::string& failed) {
    plumbing::throw_if_interrupted();
    progress(fmt::format("real: locality of {}{}: {} IDs from {} client{}, 1 per request",
                         g.target->name, setting_text(g), plan_.locality_rows, clients,
                         clients == 1 ? "" : "s"));
    LocalityRecord rec{g.target->name, g.target->system, g.settings, {}};
    if (failed.empty()) {
      rec.figures = measure_locality(spec, {.clients = clients, .rows = plan_.locality_rows,
                                            .payloads = locality::kValidationPayloads,
                                            .max_seconds = plan_.locality_max_seconds});
    } else {
      rec.figures.clients = clients;
      rec.figures.planned_rows = plan_.locality_rows;
      rec.figures.error = failed;
    }
    const LocalityFigures& f = rec.figures;
    for (const std::string& line : f.stderr_lines) progress("  stderr: " + line);
    progress(f.metrics ? fmt::format("  leaf fill {:.1f} %, {} leaf pages, {:.1f} s{}",
                                     100 * f.metrics->avg_leaf_fill.value_or(0),
                                     f.metrics->leaf_pages.value_or(0), f.seconds,
                                     f.note.empty() ? "" : "; " + f.note)
                       : "  error: " + f.error);
    record_.locality.push_back(std::move(rec));
    on_cell_(record_);
  }

  void progress(const std::string& line) {
    if (plan_.progress == nullptr) return;
    const double elapsed = static_cast<double>(plumbing::monotonic_ns() - started_ns_) / 1e9;
    const std::size_t done = record_.cells.size();
    const std::size_t left = record_.planned - done;
    const double planned_cell = static_cast<double>(plan_.warmup_ns + plan_.duration_ns) / 1e9;
    const double per_cell = done > 0 ? elapsed / static_cast<double>(done) : planned_cell;
    *plan_.progress << line
                    << fmt::format(" (elapsed {}, about {} left)\n", clock_text(elapsed),
                                   clock_text(per_cell * static_cast<double>(left)))
                    << std::flush;
  }

  const RunPlan& plan_;
  RunRecord& record_;
  const std::function<void(const RunRecord&)>& on_cell_;
  std::int64_t started_ns_;
  std::vector<std::string> direct_sockets_;  // the running MariaDB system's servers
};

}  // namespace

std::size_t RunRecord::errors() const {
  auto failed = [](const CellRecord& c) {
    return !c.figures.error.empty() || (c.direct && !c.direct->error.empty());
  };
  return static_cast<std::size_t>(std::count_if(cells.begin(), cells.end(), failed) +
                                  std::count_if(hop.begin(), hop.end(), failed));
}

std::size_t RunRecord::locality_errors() const {
  return static_cast<std::size_t>(
      std::count_if(locality.begin(), locality.end(),
                    [](const LocalityRecord& l) { return !l.figures.error.empty(); }));
}

std::vector<Target> targets_for(const std::string& systems) {
  std::vector<Target> out;
  auto add = [&out](const real::RealSystem& s) {
    if (std::none_of(out.begin(), out.end(), [&](const Target& t) { return t.system == &s; })) {
      out.push_back({s.name, &s, {}});
    }
  };
  for (const std::string& word : plumbing::split_commas(systems)) {
    const std::size_t before = out.size();
    for (const real::RealSystem& s : real::real_systems()) {
      if (word == "all" || (word == "quick" && s.in_quick_pass) || word == s.name) add(s);
    }
    if (out.size() == before && word != "all" && word != "quick") {
      std::string names;
      for (const real::RealSystem& s : real::real_systems()) names += ", " + s.name;
      throw Error(
          fmt::format("unknown system '{}' (systems: quick, all{})", one_line(word), names));
    }
  }
  return out;
}

std::size_t planned_cells(const RunPlan& plan) {
  return groups_of(plan).size() * plan.clients.size() * plan.requests.size();
}

void run_plan(const RunPlan& plan, RunRecord& record,
              const std::function<void(const RunRecord&)>& on_cell) {
  if (plan.targets.empty() || plan.clients.empty() || plan.requests.empty() ||
      plan.flush.empty()) {
    throw Error("real bench: nothing to run (no system, client count, request size or flush)");
  }
  record = RunRecord{};
  record.planned = planned_cells(plan);
  GroupRunner runner(plan, record, on_cell, plumbing::monotonic_ns());
  if (plan.hop) {
    for (int clients : plan.clients) {
      for (std::uint64_t size : plan.requests) runner.hop(clients, size);
    }
  }
  for (const Group& g : groups_of(plan)) runner.run(g);
  record.complete = true;
  on_cell(record);
}

}  // namespace idbench::realbench
