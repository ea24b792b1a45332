// chaos_command.cpp — `idbench chaos`: the command line over the chaos library (chaos/driver.hpp
// for one run, chaos/matrix.hpp for the matrix, chaos/report.hpp for what is printed).
#include "cli/chaos_command.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "chaos/driver.hpp"
#include "chaos/matrix.hpp"
#include "chaos/process.hpp"
#include "chaos/report.hpp"
#include "chaos/scenario.hpp"
#include "cli/exec_options.hpp"
#include "cli/whole_number.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/exit_codes.hpp"

namespace idbench::cli {
namespace {

struct ChaosArgs {
  bool list = false;
  bool matrix = false;
  chaos::RunConfig run;
  chaos::MatrixConfig grid;
  bool json = false;
  bool quiet = false;
  std::string timeline;
  ExecArgs exec;
};

// Chaos asks an external program for 100 IDs a request unless told: a batch fetched before a
// fault is used up within 100 IDs, so the fault shows in the next (chaos/fault_check.hpp).
constexpr std::uint64_t kChaosExecBatch = 100;

void list_scenarios() {
  std::string text =
      fmt::format("scenarios (idbench chaos --scenario NAME; durations at --time-scale 1):\n{}",
                  chaos::describe_scenarios());
  std::string clocked, policies;
  for (const auto& v : variants()) {
    if (v.time_based) clocked += fmt::format("{}{}", clocked.empty() ? "" : ", ", v.name);
  }
  for (const auto& p : policy_catalog()) {
    policies += fmt::format("{}{}", policies.empty() ? "" : ", ", p.name);
  }
  text += fmt::format("\nvariants with a clock: {}\npolicies: {}\n", clocked, policies);
  plumbing::OutputFile out("-");
  out.write(text);
  out.commit();
}

void run_one(const ChaosArgs& args) {
  // Opened before the run, so a missing directory or an unwritable place fails in one line
  // before seconds of work; written only after it, whole or not at all.
  std::optional<plumbing::OutputFile> timeline;
  if (!args.timeline.empty()) timeline.emplace(args.timeline);
  const chaos::RunResult r = chaos::run_chaos(args.run, args.quiet ? nullptr : stderr);
  plumbing::OutputFile out("-");
  if (args.json) {
    nlohmann::ordered_json j = chaos::to_json(r, false);
    j["context"] = chaos::context_json();
    j["config"].update(chaos::faketime_json());
    out.write(j.dump(2) + "\n");
  } else {
    out.write(chaos::to_text(r));
  }
  out.commit();
  if (timeline) {
    nlohmann::ordered_json j = chaos::to_json(r, true);
    j["context"] = chaos::context_json();
    j["config"].update(chaos::faketime_json());
    timeline->write(j.dump(1) + "\n");
    timeline->commit();
  }
  if (!r.verdict.passed()) throw CLI::RuntimeError(kExitFound);
}

int run_matrix(const ChaosArgs& args) {
  chaos::MatrixConfig grid = args.grid;
  grid.nodes = args.run.nodes;
  grid.threads = args.run.threads;
  grid.rate = args.run.rate;
  grid.node_binary = args.run.node_binary;
  if (args.run.time_scale != 1.0) grid.time_scale = args.run.time_scale;
  return chaos::run_matrix(grid, stderr);
}

// What a program cannot be given: a clock policy or a high-water mark inside idbench's clock,
// and the matrix of built-in variants.
std::vector<NotForExec> not_for_exec(const ChaosArgs& args) {
  const std::string matrix =
      "the matrix runs the built-in variants; run --exec with one --scenario";
  std::vector<NotForExec> options = {
      {"--policy", "the program keeps its own clock policy"},
      {"--persist",
       "the high-water mark lives inside idbench's clock, which a program does not read"},
      {"--reserve-ms", "it sizes the reservations of --persist"},
      {"--matrix", matrix},
      {"--out", "it is the matrix's file; " + matrix},
      {"--quick", matrix},
      {"--scenarios", matrix},
      {"--variants", matrix},
      {"--policies", matrix}};
  for (NotForExec& o : layout_for_exec(args.exec)) options.push_back(std::move(o));
  return options;
}

void run(const ChaosArgs& args, const CLI::App& cmd) {
  try {
    if (args.list) return list_scenarios();
    refuse_for_exec(cmd, not_for_exec(args));
    if (args.matrix) {
      if (const int status = run_matrix(args); status != 0) throw CLI::RuntimeError(status);
      return;
    }
    if (!args.exec.command.empty()) {
      ChaosArgs with_exec = args;
      with_exec.run.exec = to_exec_spec(args.exec, args.run.layout);
      with_exec.run.variant = fmt::format("exec '{}'", args.exec.command);
      with_exec.run.policy = "its own";
      if (args.run.scenario.empty()) throw Error("give --scenario with --exec");
      return run_one(with_exec);
    }
    if (args.run.scenario.empty() || args.run.variant.empty()) {
      throw Error("give --scenario and --variant or --exec (or --list, or --matrix --out FILE)");
    }
    run_one(args);
  } catch (const chaos::Interrupted&) {
    fmt::print(stderr, "idbench chaos: interrupted; nodes killed, files removed\n");
    throw CLI::RuntimeError(kExitInterrupted);
  } catch (const CLI::Error&) {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    // Whatever else a library threw (std::filesystem, std::bad_alloc) is one line, exit 2.
    throw Error(e.what());
  }
}

// A CLI11 check from one of the chaos library's range checks: the flag is rejected while the
// command line is parsed, with the library's words.
CLI::Validator in_range(std::string (*problem)(double), std::string name) {
  return CLI::Validator(
      [problem](std::string& text) {
        double v = 0;
        // An empty or non-numeric value is a problem here: CLI11 would store 0 for "".
        if (text.empty() || !CLI::detail::lexical_cast(text, v))
          return std::string("is not a number");
        return problem(v);
      },
      "", std::move(name));
}

void add_run_options(CLI::App* cmd, ChaosArgs& args) {
  cmd->add_option("--scenario", args.run.scenario, "scenario (see --list)");
  CLI::Option* variant =
      cmd->add_option("--variant", args.run.variant, "generator variant (idbench list)");
  args.exec.batch = kChaosExecBatch;
  CLI::Option* exec = add_exec_options(cmd, args.exec);
  exec->excludes(variant);
  cmd->add_option("--policy", args.run.policy, "clock-regression policy NAME[:BOUND_MS]")
      ->capture_default_str();
  cmd->add_option("--layout", args.run.layout, "layout preset or spec (64-bit variants)")
      ->capture_default_str();
  cmd->add_option("--nodes", args.run.nodes, "node processes")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--threads", args.run.threads, "threads per node")
      ->capture_default_str()
      ->check(WholeNumber(1, 64));
  cmd->add_option("--rate", args.run.rate,
                  fmt::format("IDs per second per node, {:g} … {:g}; 0 = flat out", chaos::kMinRate,
                              chaos::kMaxRate))
      ->capture_default_str()
      ->check(in_range(chaos::rate_problem, "RATE"));
  cmd->add_option("--time-scale", args.run.time_scale,
                  fmt::format("scale every time and size of the scenario, {:g} … {:g} (tests "
                              "use 0.1 … 0.3)",
                              chaos::kMinTimeScale, chaos::kMaxTimeScale))
      ->capture_default_str()
      ->check(in_range(chaos::time_scale_problem, "SCALE"));
  cmd->add_option("--persist", args.run.persist_dir,
                  "keep a durable high-water mark per node id in DIR (created if missing)");
  cmd->add_option("--reserve-ms", args.run.reserve_ms,
                  "how far ahead of the clock each durable reservation reaches")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3'600'000}));
  cmd->add_option("--keep", args.run.keep_dir, "keep the run's record files in DIR");
  cmd->add_option("--node-binary", args.run.node_binary,
                  "path of idbench-chaos-node (default: beside this executable)");
}

}  // namespace

void add_chaos_command(CLI::App& app) {
  auto args = std::make_shared<ChaosArgs>();
  CLI::App* cmd = app.add_subcommand(
      "chaos", "Run generators in node processes under a faked wall clock and check them");
  cmd->add_flag("--list", args->list, "name and describe the scenarios");
  add_run_options(cmd, *args);
  cmd->add_flag("--json", args->json, "print the run as one JSON object");
  cmd->add_option("--timeline", args->timeline,
                  "also write the JSON with the down-sampled timeline to FILE");
  cmd->add_flag("--quiet", args->quiet, "no progress on stderr");
  cmd->add_flag("--matrix", args->matrix,
                "run every scenario × variant × policy and write --out (progress on stderr)");
  cmd->add_option("--out", args->grid.out_path, "matrix: the JSON file to write");
  cmd->add_flag("--quick", args->grid.quick,
                "matrix: the variants marked for the quick matrix, timelines halved");
  cmd->add_option("--scenarios", args->grid.scenarios, "matrix: only these scenarios")
      ->delimiter(',');
  cmd->add_option("--variants", args->grid.variants, "matrix: only these variants")->delimiter(',');
  cmd->add_option("--policies", args->grid.policies, "matrix: only these policies")->delimiter(',');
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace idbench::cli
