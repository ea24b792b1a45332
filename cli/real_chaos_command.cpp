// real_chaos_command.cpp — `idbench real-chaos`: the fault scenarios on the real systems
// (real/faults.hpp), one or all, verdict lines on stdout, progress on stderr, the JSON the
// report draws in --out (rewritten whole after every scenario, so an interrupted run keeps
// what it measured).
//
//   idbench real-chaos --list
//   idbench real-chaos --scenario ticket-restore --out reports/latest/real_chaos.json
//   idbench real-chaos --scenario all
//
//   idbench real-chaos --scenario uuid-clock-back --clock-injector ptrace
//
// Exit status: 0 when every verdict passed, 1 when one failed (duplicates, unavailable, fault
// not applied, no evidence, machine starved), 2 on bad input, 3 when the ptrace injector may
// not trace the servers (never a fall back to libfaketime), 4 when a server (MariaDB,
// PostgreSQL, Redis) is not installed,
// 130 when interrupted (servers, injectors and adapters killed, their directories removed).
// "config" in --out records the clock injector.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <memory>

#include "chaos/clock_injector.hpp"
#include "cli/commands.hpp"
#include "cli/finite_range.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/run_context.hpp"
#include "plumbing/whole_number.hpp"
#include "real/faults.hpp"
#include "real/mariadb_server.hpp"

namespace idbench::cli {
namespace {

struct RealChaosArgs {
  bool list = false;
  std::vector<std::string> scenario;
  std::string out;
  bool quiet = false;
  real::FaultOptions options;
};

void list_fault_scenarios() {
  std::string text =
      "fault scenarios on the real systems (idbench real-chaos --scenario NAME|all):\n";
  for (const real::FaultScenario& s : real::fault_scenarios()) {
    text += fmt::format("  {:<26} {}\n", s.name, s.summary);
  }
  plumbing::OutputFile out("-");
  out.write(text);
  out.commit();
}

// The scenarios of --scenario (a name, NAME,NAME,... or all), in --list's order.
std::vector<std::string> chosen(const std::vector<std::string>& given) {
  if (given.empty()) throw Error("give --scenario NAME or all (or --list)");
  const bool all = std::ranges::find(given, "all") != given.end();
  std::string known;
  for (const auto& s : real::fault_scenarios()) known += (known.empty() ? "" : ", ") + s.name;
  for (const std::string& g : given) {
    const auto named = [&g](const real::FaultScenario& s) { return s.name == g; };
    if (g != "all" && std::ranges::none_of(real::fault_scenarios(), named)) {
      throw Error(fmt::format("unknown fault scenario '{}' (scenarios: {}, all)", g, known));
    }
  }
  std::vector<std::string> names;
  for (const real::FaultScenario& s : real::fault_scenarios()) {
    if (all || std::ranges::find(given, s.name) != given.end()) names.push_back(s.name);
  }
  return names;
}

void write_json(const std::string& path, const std::vector<real::FaultRun>& runs,
                chaos::ClockInjector injector) {
  nlohmann::ordered_json j;
  j["context"] = plumbing::to_json(plumbing::current_run_context());
  j["config"] = {{"clock_injector", chaos::name_of(injector)}};
  j["scenarios"] = nlohmann::ordered_json::array();
  for (const real::FaultRun& r : runs) j["scenarios"].push_back(real::to_json(r));
  plumbing::write_file_atomically(path, j.dump(1) + "\n");
}

void run(RealChaosArgs& args) {
  if (args.list) return list_fault_scenarios();
  const std::vector<std::string> names = chosen(args.scenario);
  for (const std::string& n : names) {  // every scenario's options checked before any runs
    if (const std::string why = real::why_not_runnable(n, args.options); !why.empty()) {
      throw Error(why);
    }
  }
  if (!args.out.empty()) plumbing::OutputFile(args.out).abandon();  // fails now, not later
  const plumbing::InterruptGuard guard;
  args.options.progress = args.quiet ? nullptr : stderr;
  std::vector<real::FaultRun> runs;
  bool passed = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!args.quiet)
      fmt::print(stderr, "real-chaos: scenario {}/{}: {}\n", i + 1, names.size(), names[i]);
    runs.push_back(real::run_fault_scenario(names[i], args.options));
    passed = passed && runs.back().verdict.passed();
    plumbing::OutputFile out("-");
    out.write(real::to_text(runs.back()));
    out.commit();
    if (!args.out.empty()) write_json(args.out, runs, args.options.clock_injector);
  }
  if (!passed) throw CLI::RuntimeError(kExitFound);
}

}  // namespace

void add_real_chaos_command(CLI::App& app) {
  auto args = std::make_shared<RealChaosArgs>();
  CLI::App* cmd = app.add_subcommand(
      "real-chaos",
      "Play faults on the real systems (MariaDB, PostgreSQL, Redis servers) and judge every ID");
  cmd->add_flag("--list", args->list, "name and describe the scenarios");
  cmd->add_option("--scenario", args->scenario, "a scenario (see --list), several (a,b), or all")
      ->delimiter(',');
  cmd->add_option("--out", args->out, "write the runs as JSON (with timelines) to FILE");
  cmd->add_option("--clients", args->options.clients, "client processes, each with its own adapter")
      ->capture_default_str()
      ->check(plumbing::WholeNumber(1, 16));
  cmd->add_option("--time-scale", args->options.time_scale, "multiply every phase, 0.2 … 20")
      ->capture_default_str()
      ->check(FiniteRange(0.2, 20.0));
  cmd->add_option("--flush", args->options.flush_values,
                  "auto-increment-kill9: innodb_flush_log_at_trx_commit values to try")
      ->delimiter(',')
      ->check(CLI::Range(0, 2));
  cmd->add_option("--lock-modes", args->options.lock_modes,
                  "auto-increment-kill9: innodb_autoinc_lock_mode values to try")
      ->delimiter(',')
      ->check(CLI::Range(0, 2));
  cmd->add_option(
         "--synchronous-commit", args->options.synchronous_commit,
         "postgres-kill9, postgres-standby-promotion: PostgreSQL synchronous_commit values "
         "to try (on, off)")
      ->delimiter(',')
      ->check(CLI::IsMember({"on", "off"}));
  const std::map<std::string, real::RedisPersistence> persistence = {
      {"always", real::RedisPersistence::aof_always},
      {"everysec", real::RedisPersistence::aof_everysec},
      {"rdb", real::RedisPersistence::rdb}};
  cmd->add_option("--redis-persistence", args->options.redis_persistence,
                  "redis-kill9, redis-replica-promotion: Redis persistence to try: always "
                  "(appendonly, appendfsync always), everysec, rdb (RDB snapshots only); "
                  "redis-kill9-disk-busy runs the first two")
      ->delimiter(',')
      ->transform(CLI::CheckedTransformer(persistence));
  cmd->add_option(
         "--steps", args->options.clock_steps_s,
         "postgres-clock-back: the steps back of postgres's wall clock, in s (default 1,5)")
      ->delimiter(',')
      ->check(FiniteRange(0.001, 3600.0));
  cmd->add_option("--rate-clients", args->options.rate_clients,
                  "postgres-clock-back: the client counts that set its rates")
      ->delimiter(',')
      ->check(plumbing::WholeNumber(1, 16));
  cmd->add_option("--system", args->options.system,
                  "only the parts on this real system (idbench list --json: systems)");
  std::map<std::string, chaos::ClockInjector> injectors;
  for (const auto& n : chaos::kClockInjectorNames) injectors.emplace(std::string(n.name), n.value);
  cmd->add_option("--clock-injector", args->options.clock_injector,
                  "how the UUID scenarios fake mariadbd's wall clock: libfaketime (the server "
                  "started under LD_PRELOAD) or ptrace (idbench-inject attached to the running "
                  "server; the other scenarios ignore it)")
      ->transform(CLI::CheckedTransformer(injectors, CLI::ignore_case))
      ->default_str("libfaketime");
  cmd->add_flag("--quiet", args->quiet, "no progress on stderr");
  cmd->callback([args] {
    try {
      run(*args);
    } catch (const real::ServerMissing& e) {
      fmt::print(stderr, "idbench: {}\n", e.what());
      throw CLI::RuntimeError(kExitMissingTool);
    }
  });
}

}  // namespace idbench::cli
