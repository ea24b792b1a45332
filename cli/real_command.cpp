// idbench real — the real-system bench: IDs/s and round-trip latency of real generators (a
// database scheme on project-started servers, an adapter, or any --exec program) from 1 and
// from several client threads, each with its own program instance and connection.
//
//   idbench real --system NAME[,NAME…]|quick|all [--clients 1,8] [--requests 1,1000] [--seconds S]
//                [--warmup S] [--flush 1,2] [--binlog] [--synchronous-commit on]
//                [--redis-persistence always,everysec,rdb] [--direct] [--locality-rows N]
//                [--locality-seconds S] [--quiet] [--out FILE]
//   idbench real --exec 'CMD ARGS…' [--timeout-ms MS] [--clients …] [--requests …] [--seconds S]
//                [--out FILE]
//
// quick: the systems of ./run.sh's quick pass, 1.5 s per cell after 0.25 s of warm-up; all: every
// system, 10 s per cell; one system: 3 s per cell. First, the harness's own hop: the same cells
// through the null adapter (no system). Each cell shows, beside its end-to-end figure, the system's
// own share as the adapter timed it; --direct adds a direct client's figure to every MariaDB cell.
// Then, per system, the locality of its real IDs: --locality-rows IDs from 1 client and from the
// most
// --clients, interleaved as they arrive, through the InnoDB model (bench/real/real_locality.hpp).
// The JSON (bench/real/run_json.hpp) is rewritten atomically after every cell, so an
// interrupted run keeps what it measured ("complete": false).
//
// Exit status: 0 every cell and locality pass measured; 2 bad input or a cell or pass failed
// (its error is in the JSON);
// 4 a server (MariaDB, PostgreSQL, Redis) is not installed (the systems without servers still
// ran); 130 interrupted (no
// server or program left).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "bench/real/real_run.hpp"
#include "bench/real/run_json.hpp"
#include "cli/commands.hpp"
#include "cli/finite_range.hpp"
#include "external/exec_options.hpp"
#include "generators/errors.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::cli {
namespace {

using namespace idbench::realbench;

// The locality pass's IDs per client count (real_locality.hpp). 20,000 one-ID requests fill
// 35-70 leaf pages, so one page more or less moves the fill by 1-3 points: an ordered stream
// reads ~90 % (its last page partly filled), a random one lands within about ±5 points of its
// mean (the InnoDB model on random keys, 6 seeds: BIGINT 57-67 %, BINARY(16) 58-69 %). At
// 5,000 (10-16 pages) two runs of the same system differed by up to 18 points. The cost is one
// round trip per ID: from 1 client, MariaDB's InnoDB schemes serve 1-2 k IDs/s here, so the
// quick pass caps each pass at kQuickLocalitySeconds (the figures then say how many IDs
// arrived) and keeps the whole pass at about 50 s; other profiles cap at 60 s.
constexpr std::uint64_t kLocalityRows = 20'000;
constexpr double kQuickLocalitySeconds = 6;

struct RealArgs {
  std::string system;
  external::ExecArgs exec;  // --exec and its description flags (external/exec_options.hpp)
  std::vector<int> clients{1, 8};
  std::vector<std::uint64_t> requests{1, 1000};
  std::vector<int> flush{1, 2};
  std::vector<std::string> synchronous_commit{"on"};
  std::vector<std::string> redis_persistence{"always", "everysec", "rdb"};
  std::optional<double> seconds, warmup;
  std::uint64_t locality_rows = kLocalityRows;
  std::optional<double> locality_seconds;
  bool binlog = false;
  bool direct = false;
  bool quiet = false;
  std::string out = "-";
};

std::int64_t to_ns(double seconds) { return static_cast<std::int64_t>(seconds * 1e9); }

// The first error of the run (a cell's, else a locality pass's); empty when there is none.
std::string first_error(const RunRecord& record) {
  for (const CellRecord& c : record.cells) {
    if (!c.figures.error.empty()) return c.figures.error;
  }
  for (const LocalityRecord& l : record.locality) {
    if (!l.figures.error.empty()) return l.figures.error;
  }
  return "";
}

RunPlan plan_of(const RealArgs& a, std::string& profile) {
  RunPlan plan;
  if (!a.exec.command.empty()) {
    // "twitter": any layout will do, the bench reads no ID time.
    const external::ExecSpec spec = external::to_exec_spec(a.exec, "twitter");
    external::exec_variant(spec);  // a description that is not valid: exit 2
    plan.targets.push_back({"exec", nullptr, spec});
    profile = "exec";
  } else {
    plan.targets = targets_for(a.system);
    profile = a.system == "quick" || a.system == "all" ? a.system : "system";
  }
  const double seconds = a.seconds.value_or(profile == "all" ? 10 : profile == "quick" ? 1.5 : 3);
  const double warmup = a.warmup.value_or(profile == "all" ? 1 : profile == "quick" ? 0.25 : 0.5);
  plan.clients = a.clients;
  plan.requests = a.requests;
  plan.flush = a.flush;
  plan.binlog = a.binlog;
  plan.synchronous_commit = a.synchronous_commit;
  plan.redis_persistence.clear();
  for (const std::string& p : a.redis_persistence) {
    plan.redis_persistence.push_back(real::parse_redis_persistence(p));
  }
  plan.direct = a.direct;
  plan.hop = true;
  plan.duration_ns = to_ns(seconds);
  plan.locality_rows = a.locality_rows;
  plan.locality_max_seconds =
      a.locality_seconds.value_or(profile == "quick" ? kQuickLocalitySeconds : 60);
  // From 1 client, and from the most clients the cells ran with.
  const int most = *std::max_element(a.clients.begin(), a.clients.end());
  plan.locality_clients = most > 1 ? std::vector<int>{1, most} : std::vector<int>{1};
  plan.warmup_ns = to_ns(warmup);
  plan.progress = a.quiet ? nullptr : &std::cerr;
  return plan;
}

void run_real(const RealArgs& a) {
  std::string profile;
  const RunPlan plan = plan_of(a, profile);
  plumbing::InterruptGuard guard;
  // Written after every cell when --out is a file; standard output gets it once, at the end.
  const bool rewrite = a.out != "-" && !a.out.empty();
  auto write = [&](const RunRecord& r) {
    plumbing::write_file_atomically(a.out, to_json(plan, r, profile).dump(2) + "\n");
  };
  RunRecord record;
  record.planned = planned_cells(plan);
  if (rewrite) write(record);  // an unwritable --out fails before anything runs
  try {
    run_plan(plan, record, [&](const RunRecord& r) {
      if (rewrite || r.complete) write(r);
    });
  } catch (const plumbing::Interrupted&) {
    record.complete = false;
    write(record);
    throw;
  }
  if (!a.quiet) {
    fmt::print(stderr, "real: {} cells, {} with an error; {} locality passes, {} with an error{}\n",
               record.cells.size(), record.errors(), record.locality.size(),
               record.locality_errors(), rewrite ? "; wrote " + a.out : "");
  }
  // The progress showed every error as it came; without it, the first is still said.
  if (const std::string error = first_error(record); a.quiet && !error.empty()) {
    fmt::print(stderr, "idbench: {}\n", error);
  }
  if (record.missing_tool) throw CLI::RuntimeError(kExitMissingTool);
  if (record.errors() + record.locality_errors() > 0) throw CLI::RuntimeError(kExitBadInput);
}

}  // namespace

void add_real_command(CLI::App& app) {
  auto args = std::make_shared<RealArgs>();
  CLI::App* cmd = app.add_subcommand(
      "real",
      "Bench real systems (MariaDB schemes, adapters) or an --exec program: IDs/s and "
      "round-trip latency from 1 and several clients, each with its own program instance");
  auto* system =
      cmd->add_option("--system", args->system,
                      "Systems (idbench list), comma-separated, or quick (the quick pass) or all");
  CLI::Option* exec = external::add_exec_options(cmd, args->exec);
  system->excludes(exec);
  cmd->add_option("--clients", args->clients, "Client threads per cell, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--requests", args->requests, "IDs per request, comma-separated")
      ->delimiter(',')
      ->check(plumbing::WholeNumber(1, external::kMaxRequest))
      ->capture_default_str();
  cmd->add_option("--flush", args->flush,
                  "innodb_flush_log_at_trx_commit values for systems with servers")
      ->delimiter(',')
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  cmd->add_flag("--binlog", args->binlog, "Servers write a binlog (log_bin, sync_binlog=1)");
  cmd->add_option("--synchronous-commit", args->synchronous_commit,
                  "PostgreSQL synchronous_commit values for the PostgreSQL systems (fsync on)")
      ->delimiter(',')
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd->add_option("--redis-persistence", args->redis_persistence,
                  "Redis persistence for the Redis systems: always (appendonly, appendfsync "
                  "always), everysec (appendfsync everysec), rdb (RDB snapshots only)")
      ->delimiter(',')
      ->check(CLI::IsMember({"always", "everysec", "rdb"}))
      ->capture_default_str();
  cmd->add_flag("--direct", args->direct,
                "After every MariaDB cell, the same SQL from idbench's own threads, one "
                "connection each (no adapter, no pipe): the reference an application sees");
  cmd->add_option("--locality-rows", args->locality_rows,
                  "IDs per client count for the locality of each system's real IDs (from 1 "
                  "client and from the most --clients, through the InnoDB model); 0: skip")
      ->check(plumbing::WholeNumber(0, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--locality-seconds", args->locality_seconds,
                  "Cap on collecting one locality pass's IDs (default: quick 6, else 60)")
      ->check(FiniteRange(0.1, 3600.0));
  cmd->add_option("--seconds", args->seconds,
                  "Measuring time per cell (default: quick 1.5, one system 3, all 10)")
      ->check(FiniteRange(0.01, 3600.0));
  cmd->add_option("--warmup", args->warmup, "Warm-up per cell (default 0.5, quick: 0.25, all: 1)")
      ->check(FiniteRange(0.0, 600.0));
  cmd->add_option("--out", args->out, "The JSON file, rewritten after every cell (- stdout)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet,
                "No progress on stderr (the adapters' stderr is captured into the JSON anyway)");
  cmd->callback([args, system, exec, cmd]() {
    if (system->count() == 0 && exec->count() == 0) {
      throw Error("idbench real needs --system NAME|quick|all or --exec 'CMD'");
    }
    // The bench times round trips of --requests IDs: it reads neither time nor order from them.
    external::refuse_for_exec(
        *cmd, {{"--flush", "it sets the MariaDB servers of --system"},
               {"--binlog", "it sets the MariaDB servers of --system"},
               {"--synchronous-commit", "it sets the PostgreSQL servers of --system"},
               {"--redis-persistence", "it sets the Redis servers of --system"},
               {"--batch", "real asks for --requests IDs per request"},
               {"--id-time", "real reads no time from the IDs"},
               {"--ordering", "real reads no order from the IDs"}});
    run_real(*args);
  });
}

}  // namespace idbench::cli
