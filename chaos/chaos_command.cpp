#include "chaos/chaos_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "chaos/driver.hpp"
#include "chaos/matrix.hpp"
#include "chaos/process.hpp"
#include "chaos/report.hpp"
#include "chaos/scenario.hpp"
#include "cli/commands.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"

namespace idbench::cli {
namespace {

constexpr int kExitInterrupted = 130;

struct ChaosArgs {
  bool list = false;
  bool matrix = false;
  chaos::RunConfig run;
  chaos::MatrixConfig grid;
  bool json = false;
  bool quiet = false;
  std::string timeline;
  std::string commit;
};

void list_scenarios() {
  fmt::print("scenarios (idbench chaos --scenario NAME; durations at --time-scale 1):\n{}",
             chaos::describe_scenarios());
  fmt::print("\nvariants with a clock: ");
  bool first = true;
  for (const auto& v : variants()) {
    if (!v.time_based) continue;
    fmt::print("{}{}", first ? "" : ", ", v.name);
    first = false;
  }
  fmt::print("\npolicies: ");
  first = true;
  for (const auto& p : policy_catalog()) {
    fmt::print("{}{}", first ? "" : ", ", p.name);
    first = false;
  }
  fmt::print("\n");
}

void run_one(const ChaosArgs& args) {
  const chaos::RunResult r = chaos::run_chaos(args.run, args.quiet ? nullptr : stderr);
  if (args.json) {
    nlohmann::ordered_json j = chaos::to_json(r, false);
    j["context"] = chaos::context_json(args.commit);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", chaos::to_text(r));
  }
  if (!args.timeline.empty()) {
    nlohmann::ordered_json j = chaos::to_json(r, true);
    j["context"] = chaos::context_json(args.commit);
    const std::string temp = args.timeline + ".tmp";
    std::ofstream(temp) << j.dump(1) << "\n";
    std::rename(temp.c_str(), args.timeline.c_str());
  }
  if (!r.verdict.promise_kept) throw CLI::RuntimeError(kExitFound);
}

void run(const ChaosArgs& args) {
  try {
    if (args.list) {
      list_scenarios();
      return;
    }
    if (args.matrix) {
      chaos::MatrixConfig grid = args.grid;
      grid.nodes = args.run.nodes;
      grid.threads = args.run.threads;
      grid.rate = args.run.rate;
      grid.commit = args.commit;
      grid.node_binary = args.run.node_binary;
      if (args.run.time_scale != 1.0) grid.time_scale = args.run.time_scale;
      const int status = chaos::run_matrix(grid, stderr);
      if (status != 0) throw CLI::RuntimeError(status);
      return;
    }
    if (args.run.scenario.empty() || args.run.variant.empty()) {
      throw Error("give --scenario and --variant (or --list, or --matrix --out FILE)");
    }
    run_one(args);
  } catch (const chaos::Interrupted&) {
    fmt::print(stderr, "idbench chaos: interrupted; nodes killed, files removed\n");
    throw CLI::RuntimeError(kExitInterrupted);
  }
}

}  // namespace

void add_chaos_command(CLI::App& app) {
  auto args = std::make_shared<ChaosArgs>();
  CLI::App* cmd = app.add_subcommand(
      "chaos", "Run generators in node processes under a faked wall clock and check them");
  cmd->add_flag("--list", args->list, "name and describe the scenarios");
  cmd->add_option("--scenario", args->run.scenario, "scenario (see --list)");
  cmd->add_option("--variant", args->run.variant, "generator variant (idbench list)");
  cmd->add_option("--policy", args->run.policy, "clock-regression policy NAME[:BOUND_MS]")
      ->capture_default_str();
  cmd->add_option("--layout", args->run.layout, "layout preset or spec (64-bit variants)")
      ->capture_default_str();
  cmd->add_option("--nodes", args->run.nodes, "node processes")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--threads", args->run.threads, "threads per node")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--rate", args->run.rate, "IDs per second per node; 0 = flat out")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--time-scale", args->run.time_scale,
                  "scale every time and size of the scenario (tests use 0.1 … 0.3)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--persist", args->run.persist_dir,
                  "keep a durable high-water mark per node id in DIR (created if missing)");
  cmd->add_option("--reserve-ms", args->run.reserve_ms,
                  "how far ahead of the clock each durable reservation reaches")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3'600'000}));
  cmd->add_flag("--json", args->json, "print the run as one JSON object");
  cmd->add_option("--timeline", args->timeline,
                  "also write the JSON with the down-sampled timeline to FILE");
  cmd->add_option("--keep", args->run.keep_dir, "keep the run's record files in DIR");
  cmd->add_flag("--quiet", args->quiet, "no progress on stderr");
  cmd->add_option("--node-binary", args->run.node_binary,
                  "path of idbench-chaos-node (default: beside this executable)");
  cmd->add_option("--commit", args->commit, "the commit recorded in the JSON context");
  cmd->add_flag("--matrix", args->matrix,
                "run every scenario × variant × policy and write --out (progress on stderr)");
  cmd->add_option("--out", args->grid.out_path, "matrix: the JSON file to write");
  cmd->add_flag("--quick", args->grid.quick, "matrix: cas and uuidv7 only, timelines halved");
  cmd->add_option("--scenarios", args->grid.scenarios, "matrix: only these scenarios")
      ->delimiter(',');
  cmd->add_option("--variants", args->grid.variants, "matrix: only these variants")->delimiter(',');
  cmd->add_option("--policies", args->grid.policies, "matrix: only these policies")->delimiter(',');
  cmd->callback([args] { run(*args); });
}

}  // namespace idbench::cli
