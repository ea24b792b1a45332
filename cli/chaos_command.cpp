// chaos_command.cpp — `idbench chaos`: the command line over the chaos library (chaos/options.hpp
// for its flags, chaos/driver.hpp for one run, chaos/matrix.hpp for the matrix, chaos/run_json.hpp
// and chaos/run_text.hpp for what is printed).
#include "cli/chaos_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "chaos/driver.hpp"
#include "chaos/matrix.hpp"
#include "chaos/options.hpp"
#include "chaos/process.hpp"
#include "chaos/run_json.hpp"
#include "chaos/run_text.hpp"
#include "chaos/scenario.hpp"
#include "external/exec_options.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/exit_codes.hpp"
#include "real/systems.hpp"

namespace idbench::cli {
namespace {

using chaos::ChaosArgs;

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
    j["config"].update(chaos::clocks_json(args.run.clock_injector));
    out.write(j.dump(2) + "\n");
  } else {
    out.write(chaos::to_text(r));
  }
  out.commit();
  if (timeline) {
    nlohmann::ordered_json j = chaos::to_json(r, true);
    j["context"] = chaos::context_json();
    j["config"].update(chaos::clocks_json(args.run.clock_injector));
    timeline->write(j.dump(1) + "\n");
    timeline->commit();
  }
  if (!r.verdict.passed()) throw CLI::RuntimeError(kExitFound);
}

// The matrix's programs: each named real system's adapter, as `real` would run it.
std::vector<chaos::MatrixProgram> matrix_programs(const std::vector<std::string>& names) {
  std::vector<chaos::MatrixProgram> out;
  for (const std::string& name : names) {
    const real::RealSystem* s = real::find_real_system(name);
    if (s == nullptr)
      throw Error(fmt::format("--systems: unknown system '{}' (idbench list)", name));
    if (s->servers > 0) {
      throw Error(
          fmt::format("--systems: '{}' runs on a server; its faults are real-chaos's", name));
    }
    if (std::ranges::any_of(out, [&](const chaos::MatrixProgram& p) { return p.name == name; })) {
      throw Error(fmt::format("--systems: '{}' is given twice", name));
    }
    out.push_back({name, s->scheme, real::RunningSystem(*s, {}).exec_spec()});
  }
  return out;
}

int run_matrix(const ChaosArgs& args) {
  chaos::MatrixConfig grid = args.grid;
  grid.programs = matrix_programs(args.systems);
  grid.nodes = args.run.nodes;
  grid.threads = args.run.threads;
  grid.rate = args.run.rate;
  grid.node_binary = args.run.node_binary;
  grid.clock_injector = args.run.clock_injector;
  if (args.run.time_scale != 1.0) grid.time_scale = args.run.time_scale;
  return chaos::run_matrix(grid, stderr);
}

// What a program cannot be given: a clock policy or a high-water mark inside idbench's clock,
// and the matrix of built-in variants.
std::vector<external::NotForExec> not_for_exec(const ChaosArgs& args) {
  const std::string matrix =
      "the matrix runs the built-in variants; run --exec with one --scenario";
  std::vector<external::NotForExec> options = {
      {"--policy", "the program keeps its own clock policy"},
      {"--persist",
       "the high-water mark lives inside idbench's clock, which a program does not read"},
      {"--reserve-ms", "it sizes the reservations of --persist"},
      {"--matrix", matrix},
      {"--out", "it is the matrix's file; " + matrix},
      {"--quick", matrix},
      {"--scenarios", matrix},
      {"--variants", matrix},
      {"--policies", matrix},
      {"--systems", matrix}};
  for (external::NotForExec& o : external::layout_for_exec(args.exec))
    options.push_back(std::move(o));
  return options;
}

void run(const ChaosArgs& args, const CLI::App& cmd) {
  try {
    if (args.list) return list_scenarios();
    external::refuse_for_exec(cmd, not_for_exec(args));
    if (!args.systems.empty() && !args.matrix)
      throw Error("--systems is the matrix's: give --matrix");
    if (args.matrix) {
      if (const int status = run_matrix(args); status != 0) throw CLI::RuntimeError(status);
      return;
    }
    if (!args.exec.command.empty()) {
      ChaosArgs with_exec = args;
      with_exec.run.exec = external::to_exec_spec(args.exec, args.run.layout);
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

}  // namespace

void add_chaos_command(CLI::App& app) {
  auto args = std::make_shared<chaos::ChaosArgs>();
  CLI::App* cmd = app.add_subcommand(
      "chaos", "Run generators in node processes under a faked wall clock and check them");
  chaos::add_chaos_options(cmd, *args);
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace idbench::cli
