// idbench-chaos-node — one node of a chaos run (see node.hpp). Started by the driver under
// libfaketime; not meant to be run by hand, except `--sweep`, which removes what runs killed
// with -9 left behind (plumbing::sweep_leftovers, as every idbench command does first; the
// ctest cleanup fixture runs it).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "chaos/node.hpp"
#include "external/exec_options.hpp"
#include "plumbing/leftovers.hpp"

int main(int argc, char** argv) {
  idbench::chaos::NodeConfig cfg;
  bool sweep = false;
  CLI::App app{"idbench-chaos-node: one node of `idbench chaos` (started by the driver)"};
  app.add_flag("--sweep", sweep,
               "remove what killed runs left (/dev/shm/faketime_*, idbench temp directories) and exit");
  app.add_option("--variant", cfg.variant, "generator variant");
  app.add_option("--layout", cfg.layout, "layout preset or spec");
  app.add_option("--policy", cfg.policy, "clock-regression policy");
  app.add_option("--node-id", cfg.node_id, "node id");
  app.add_option("--node-index", cfg.node_index, "index of the node in the run");
  app.add_option("--incarnation", cfg.incarnation, "how many times this node restarted");
  app.add_option("--threads", cfg.threads, "generator threads")->check(CLI::Range(1u, 64u));
  app.add_option("--rate", cfg.rate, "IDs per second for the node; 0 = flat out");
  app.add_option("--out-dir", cfg.out_dir, "run directory for the records");
  app.add_option("--persist", cfg.persist_dir, "high-water mark directory");
  app.add_option("--reserve-ms", cfg.reserve_ms, "reservation ahead of the clock");
  app.add_option("--slow-store-ms", cfg.slow_store_ms, "a planted slow disk: ms added to each "
                 "durable write of the mark")->check(CLI::Range(0, 10'000));
  app.add_flag("--probe", cfg.probe, "read the faked clock every ms into a .probe file");
  idbench::external::ExecArgs exec;
  idbench::external::add_exec_options(&app, exec);
  CLI11_PARSE(app, argc, argv);
  if (sweep) {
    const idbench::plumbing::Swept swept = idbench::plumbing::sweep_leftovers();
    fmt::print("removed {} stale /dev/shm entries and {} stale temp directories\n",
               swept.faketime_shm, swept.temp_dirs);
    return 0;
  }
  if ((cfg.variant.empty() && exec.command.empty()) || cfg.out_dir.empty()) {
    fmt::print(stderr, "idbench-chaos-node: --variant (or --exec) and --out-dir are required\n");
    return 2;
  }
  if (!exec.command.empty()) {
    try {
      cfg.exec = idbench::external::to_exec_spec(exec, cfg.layout);
    } catch (const std::exception& e) {
      fmt::print(stderr, "idbench-chaos-node: {}\n", e.what());
      return 2;
    }
  }
  return idbench::chaos::run_node(cfg);
}
