// idbench real — the real-system bench: IDs/s and round-trip latency of real generators (a
// database scheme on project-started servers, an adapter, or any --exec program) from 1 and
// from several client threads, each with its own program instance and connection.
//
//   idbench real --system NAME[,NAME…]|quick|all [--clients 1,8] [--requests 1,1000] [--seconds S]
//                [--warmup S] [--flush 1,2] [--binlog] [--out FILE]
//   idbench real --exec 'CMD ARGS…' [--timeout-ms MS] [--clients …] [--requests …] [--seconds S]
//                [--out FILE]
//
// quick: the systems of ./run.sh's quick pass, 2 s per cell; all: every system, 10 s per cell;
// one system: 3 s per cell. The JSON (bench/real/results_json.hpp) is rewritten atomically
// after every cell, so an interrupted run keeps what it measured ("complete": false).
//
// Exit status: 0 every cell measured; 2 bad input or a cell failed (its error is in the JSON);
// 4 MariaDB is not installed (the systems without servers still ran); 130 interrupted (no
// server or program left).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "bench/real/real_run.hpp"
#include "bench/real/results_json.hpp"
#include "cli/commands.hpp"
#include "cli/exec_options.hpp"
#include "generators/errors.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::cli {
namespace {

using namespace idbench::realbench;

struct RealArgs {
  std::string system;
  ExecArgs exec;  // --exec and its description flags (cli/exec_options.hpp)
  std::vector<int> clients{1, 8};
  std::vector<std::uint64_t> requests{1, 1000};
  std::vector<int> flush{1, 2};
  std::optional<double> seconds, warmup;
  bool binlog = false;
  std::string out = "-";
};

std::int64_t to_ns(double seconds) { return static_cast<std::int64_t>(seconds * 1e9); }

RunPlan plan_of(const RealArgs& a, std::string& profile) {
  RunPlan plan;
  if (!a.exec.command.empty()) {
    const external::ExecSpec spec = to_exec_spec(a.exec, "twitter");  // the bench reads no ID time
    external::split_command(spec.command);  // an empty command or a bad quote: exit 2
    external::exec_variant(spec);           // a description that is not valid: exit 2
    plan.targets.push_back({"exec", nullptr, spec});
    profile = "exec";
  } else {
    plan.targets = targets_for(a.system);
    profile = a.system == "quick" || a.system == "all" ? a.system : "system";
  }
  const double seconds = a.seconds.value_or(profile == "all" ? 10 : profile == "quick" ? 2 : 3);
  const double warmup = a.warmup.value_or(profile == "all" ? 1 : 0.5);
  plan.clients = a.clients;
  plan.requests = a.requests;
  plan.flush = a.flush;
  plan.binlog = a.binlog;
  plan.duration_ns = to_ns(seconds);
  plan.warmup_ns = to_ns(warmup);
  plan.progress = &std::cerr;
  return plan;
}

void run_real(const RealArgs& a) {
  std::string profile;
  const RunPlan plan = plan_of(a, profile);
  plumbing::sweep_stale_temp_dirs();
  plumbing::InterruptGuard guard;
  // Written after every cell when --out is a file; standard output gets it once, at the end.
  const bool rewrite = a.out != "-" && !a.out.empty();
  auto write = [&](const RunRecord& r) {
    plumbing::write_file_atomically(a.out, run_json(plan, r, profile).dump(2) + "\n");
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
  fmt::print(stderr, "real: {} cells, {} with an error{}\n", record.cells.size(), record.errors(),
             rewrite ? "; wrote " + a.out : "");
  if (record.missing_tool) throw CLI::RuntimeError(kExitMissingTool);
  if (record.errors() > 0) throw CLI::RuntimeError(kExitBadInput);
}

}  // namespace

void add_real_command(CLI::App& app) {
  auto args = std::make_shared<RealArgs>();
  CLI::App* cmd = app.add_subcommand(
      "real",
      "Bench real systems (MariaDB schemes, adapters) or an --exec program: IDs/s and "
      "round-trip latency from 1 and several clients, each with its own program instance");
  auto* system = cmd->add_option(
      "--system", args->system,
      "Systems (idbench list), comma-separated, or quick (the quick pass) or all");
  CLI::Option* exec = add_exec_options(cmd, args->exec);
  system->excludes(exec);
  cmd->add_option("--clients", args->clients, "Client threads per cell, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--requests", args->requests, "IDs per request, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(std::uint64_t{1}, external::kMaxRequest))
      ->capture_default_str();
  cmd->add_option("--flush", args->flush,
                  "innodb_flush_log_at_trx_commit values for systems with servers")
      ->delimiter(',')
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  cmd->add_flag("--binlog", args->binlog, "Servers write a binlog (log_bin, sync_binlog=1)");
  cmd->add_option("--seconds", args->seconds,
                  "Measuring time per cell (default: quick 2, one system 3, all 10)")
      ->check(CLI::Range(0.01, 3600.0));
  cmd->add_option("--warmup", args->warmup, "Warm-up per cell (default 0.5, all: 1)")
      ->check(CLI::Range(0.0, 600.0));
  cmd->add_option("--out", args->out, "The JSON file, rewritten after every cell (- stdout)")
      ->capture_default_str();
  cmd->callback([args, system, exec]() {
    if (system->count() == 0 && exec->count() == 0) {
      throw Error("idbench real needs --system NAME|quick|all or --exec 'CMD'");
    }
    run_real(*args);
  });
}

}  // namespace idbench::cli
