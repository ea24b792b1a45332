// options.cpp — the options of `idbench chaos`, defined once (see options.hpp).
#include "chaos/options.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "plumbing/whole_number.hpp"

namespace idbench::chaos {
namespace {

// Chaos asks an external program for 100 IDs a request unless told: a batch fetched before a
// fault is used up within 100 IDs, so the fault shows in the next (chaos/fault_check.hpp).
constexpr std::uint64_t kChaosExecBatch = 100;

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
  CLI::Option* exec = external::add_exec_options(cmd, args.exec);
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
      ->check(plumbing::WholeNumber(1, 64));
  cmd->add_option(
         "--rate", args.run.rate,
         fmt::format("IDs per second per node, {:g} … {:g}; 0 = flat out", kMinRate, kMaxRate))
      ->capture_default_str()
      ->check(in_range(rate_problem, "RATE"));
  cmd->add_option("--time-scale", args.run.time_scale,
                  fmt::format("scale every time and size of the scenario, {:g} … {:g} (tests "
                              "use 0.1 … 0.3)",
                              kMinTimeScale, kMaxTimeScale))
      ->capture_default_str()
      ->check(in_range(time_scale_problem, "SCALE"));
  cmd->add_option("--persist", args.run.persist_dir,
                  "keep a durable high-water mark per node id in DIR (created if missing)");
  cmd->add_option("--reserve-ms", args.run.reserve_ms,
                  "how far ahead of the clock each durable reservation reaches")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3'600'000}));
  cmd->add_option("--keep", args.run.keep_dir, "keep the run's record files in DIR");
  cmd->add_option("--node-binary", args.run.node_binary,
                  "path of idbench-chaos-node (default: beside this executable)");
  std::map<std::string, ClockInjector> injectors;
  for (const auto& n : kClockInjectorNames) injectors.emplace(std::string(n.name), n.value);
  cmd->add_option("--clock-injector", args.run.clock_injector,
                  "how the nodes' clocks are faked: libfaketime (LD_PRELOAD: programs that read "
                  "the clock through a dynamic libc) or ptrace (idbench-inject: also Go, static "
                  "binaries and raw clock syscalls)")
      ->transform(CLI::CheckedTransformer(injectors, CLI::ignore_case))
      ->default_str("libfaketime");
}

}  // namespace

void add_chaos_options(CLI::App* cmd, ChaosArgs& args) {
  cmd->add_flag("--list", args.list, "name and describe the scenarios");
  add_run_options(cmd, args);
  cmd->add_flag("--json", args.json, "print the run as one JSON object");
  cmd->add_option("--timeline", args.timeline,
                  "also write the JSON with the down-sampled timeline to FILE");
  cmd->add_flag("--quiet", args.quiet, "no progress on stderr");
  cmd->add_flag("--matrix", args.matrix,
                "run every scenario × variant × policy and write --out (progress on stderr)");
  cmd->add_option("--out", args.grid.out_path, "matrix: the JSON file to write");
  cmd->add_flag("--quick", args.grid.quick,
                "matrix: the variants marked for the quick matrix, timelines at a quarter "
                "(restarts at half, programs in full)");
  cmd->add_option("--scenarios", args.grid.scenarios, "matrix: only these scenarios")
      ->delimiter(',');
  cmd->add_option("--variants", args.grid.variants, "matrix: only these variants")->delimiter(',');
  cmd->add_option("--policies", args.grid.policies, "matrix: only these policies")->delimiter(',');
  cmd->add_option("--systems", args.systems,
                  "matrix: also these real systems without a server (idbench list), each "
                  "under the scenarios that step a clock back")
      ->delimiter(',');
}

}  // namespace idbench::chaos
