// worker_ids_command.cpp — `idbench worker-ids`: worker ids leased from a real etcd cluster
// (coord/), the worker-id fault scenarios played on the nodes and the members, one line per
// run on stdout, progress on stderr, the runs as JSON in --out (rewritten after every run).
//
//   idbench worker-ids --list
//   idbench worker-ids --scenario pause-beyond-lease --behaviour deadline
//   idbench worker-ids --scenario all --behaviour all --out reports/latest/worker_ids.json
//
// Exit status: 0 when no run issued a duplicate, 1 when one did (the gate), 2 on bad input
// or an etcd unreachable or without quorum at start, 4 when etcd is not installed, 130 when
// interrupted (nodes and etcd members killed, their directories removed).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/finite_range.hpp"
#include "coord/driver.hpp"
#include "coord/etcd_cluster.hpp"
#include "coord/rates.hpp"
#include "coord/run_json.hpp"
#include "coord/scenario.hpp"
#include "fault/verdict.hpp"
#include "generators/layout.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/enum_names.hpp"
#include "plumbing/run_context.hpp"

namespace idbench::cli {
namespace {

struct WorkerIdsArgs {
  bool list = false;
  std::string scenario = "pause-beyond-lease";
  std::string behaviour = "all";
  std::string worker_ids = "etcd";
  std::string endpoints;
  std::string out;
  bool quiet = false;
  bool rates = false;
  bool gen_bits_given = false;
  coord::RateOptions rate_options;
  coord::WorkerRunConfig config;
};

void list_worker_scenarios() {
  std::string text = "worker-id scenarios (idbench worker-ids --scenario NAME|all):\n";
  for (const coord::WorkerScenario& s : coord::worker_scenarios()) {
    text += fmt::format("  {:<20} {}\n", s.name, s.summary);
  }
  text += "behaviours (--behaviour NAME|all): unfenced, deadline, in-id\n";
  plumbing::OutputFile out("-");
  out.write(text);
  out.commit();
}

std::vector<std::string> chosen_scenarios(const std::string& name) {
  std::vector<std::string> out;
  for (const auto& s : coord::worker_scenarios()) {
    if (name == "all" || name == s.name) out.emplace_back(s.name);
  }
  if (out.empty()) {
    std::string known;
    for (const auto& s : coord::worker_scenarios()) known += std::string(s.name) + ", ";
    throw Error(fmt::format("unknown worker-id scenario '{}' (scenarios: {}all)", name, known));
  }
  return out;
}

std::vector<coord::Behaviour> chosen_behaviours(const std::string& name) {
  using coord::Behaviour;
  if (name == "all") return {Behaviour::unfenced, Behaviour::deadline, Behaviour::in_id};
  const auto b = coord::behaviour_named(name);
  if (!b) {
    throw Error(fmt::format("unknown behaviour '{}' ({}, all)", name,
                            fmt::join(plumbing::names_in(coord::kBehaviourNames), ", ")));
  }
  return {*b};
}

// "ok", "CAUGHT" (an ID issued twice), or the verdict's word ("no evidence").
std::string word_of(const fault::Verdict& v) {
  if (v.passed()) return "ok    ";
  if (v.outcome == fault::Outcome::duplicates) return "CAUGHT";
  return std::string(fault::name_of(v.outcome));
}

std::string line_of(const coord::WorkerRunResult& r) {
  std::string nodes;
  for (const auto& n : r.analysis.nodes) {
    nodes += fmt::format(" n{}:{}c/{:.0f}ms", n.node, n.claims, n.unavailable_ns / 1e6);
  }
  std::int64_t zombie = 0;
  for (const auto& n : r.analysis.nodes) zombie += n.zombie_ids;
  return fmt::format(
      "{:<20} {:<9} duplicates {:>7} {}  zombie IDs {:>6}  worker ids used {} "
      "(highest+1 {})  claims/unavailable:{}\n",
      r.config.scenario, coord::name_of(r.config.behaviour), r.analysis.duplicates,
      word_of(r.verdict), zombie, r.analysis.workers_claimed,
      r.analysis.worker_space_used, nodes);
}

void write_json(const std::string& path, const std::vector<coord::WorkerRunResult>& runs) {
  nlohmann::json j;
  j["context"] = plumbing::to_json(plumbing::current_run_context());
  j["runs"] = nlohmann::json::array();
  for (const auto& r : runs) j["runs"].push_back(coord::to_json(r));
  plumbing::write_file_atomically(path, j.dump(1) + "\n");
}

// --rates: lease renewals/s against etcd puts/s on this machine.
void run_rates(WorkerIdsArgs& args) {
  if (!args.out.empty()) plumbing::OutputFile(args.out).abandon();
  const coord::RateResult r = coord::measure_rates(args.rate_options, args.quiet ? nullptr : stderr);
  std::string text = fmt::format("{} (private 3-member cluster on loopback, this project's client)\n",
                                 r.etcd_version);
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) {
    text += fmt::format("  {:<9} {:>3} clients: {:>8.0f} calls/s  mean {:.2f} ms\n", p.what,
                        p.clients, p.per_second, p.mean_latency_ms);
    points.push_back({{"what", p.what}, {"clients", p.clients}, {"calls", p.calls},
                      {"seconds", p.seconds}, {"per_second", p.per_second},
                      {"mean_latency_ms", p.mean_latency_ms}});
  }
  if (!r.etcdctl_check_perf.empty()) text += "etcdctl check perf --load=s:\n" + r.etcdctl_check_perf;
  plumbing::OutputFile out("-");
  out.write(text);
  out.commit();
  if (!args.out.empty()) {
    nlohmann::json j;
    j["context"] = plumbing::to_json(plumbing::current_run_context());
    j["etcd_version"] = r.etcd_version;
    j["points"] = points;
    j["etcdctl_check_perf"] = r.etcdctl_check_perf;
    plumbing::write_file_atomically(args.out, j.dump(1) + "\n");
  }
}

void run(WorkerIdsArgs& args) {
  if (args.list) return list_worker_scenarios();
  if (args.rates) return run_rates(args);
  if (args.worker_ids != "etcd" && args.worker_ids != "static") {
    throw Error(fmt::format("--worker-ids must be static or etcd, not '{}'", args.worker_ids));
  }
  args.config.etcd = args.worker_ids == "etcd";
  if (args.gen_bits_given && Layout::parse(args.config.layout).gen_bits() > 0) {
    throw Error(fmt::format("--gen-bits and layout {}'s gen= both give the gen field: give one",
                            args.config.layout));
  }
  if (!args.endpoints.empty()) args.config.endpoints = coord::parse_endpoints(args.endpoints);
  const auto scenarios = chosen_scenarios(args.scenario);
  const auto behaviours = chosen_behaviours(args.behaviour);
  if (!args.out.empty()) plumbing::OutputFile(args.out).abandon();  // fails now, not later
  std::vector<coord::WorkerRunResult> runs;
  const std::size_t total = scenarios.size() * behaviours.size();
  for (const auto& s : scenarios) {
    for (const auto b : behaviours) {
      if (!args.quiet) {
        fmt::print(stderr, "worker-ids: run {}/{}: {} {}\n", runs.size() + 1, total, s, coord::name_of(b));
      }
      coord::WorkerRunConfig c = args.config;
      c.scenario = s;
      c.behaviour = b;
      runs.push_back(coord::run_worker_ids(c, args.quiet ? nullptr : stderr));
      plumbing::OutputFile out("-");
      out.write(line_of(runs.back()));
      out.commit();
      if (!args.out.empty()) write_json(args.out, runs);
    }
  }
  for (const auto& r : runs) {
    if (!r.verdict.passed()) throw CLI::RuntimeError(kExitFound);
  }
}

}  // namespace

void add_worker_ids_command(CLI::App& app) {
  auto args = std::make_shared<WorkerIdsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "worker-ids", "Lease Snowflake worker ids from a real etcd cluster and play pauses and "
                    "etcd failures on them");
  cmd->add_flag("--list", args->list, "name and describe the scenarios and behaviours");
  cmd->add_option("--scenario", args->scenario, "a scenario (see --list), or all")->capture_default_str();
  cmd->add_option("--behaviour", args->behaviour, "unfenced, deadline, in-id, or all")->capture_default_str();
  cmd->add_option("--worker-ids", args->worker_ids,
                  "static (node k is worker k) or etcd (leased: lowest free id)")->capture_default_str();
  cmd->add_option("--nodes", args->config.nodes, "nodes at start")->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--ttl", args->config.ttl_s, "lease TTL in s (etcd's election timeout is TTL/2)")
      ->capture_default_str()->check(CLI::Range(1, 60));
  cmd->add_option("--variant", args->config.variant,
                  "a 64-bit Snowflake-family variant taking one node id (default: the first)");
  cmd->add_option("--layout", args->config.layout, "the variant's layout")->capture_default_str();
  CLI::Option* gen_bits = cmd->add_option(
      "--gen-bits", args->config.gen_bits,
      "in-id: the fencing token's bits, the layout key gen=N taken from the top of the node "
      "field (a --layout with gen= keeps its own)")->capture_default_str()->check(CLI::Range(1, 8));
  cmd->add_option("--ids-per-ms", args->config.ids_per_ms, "IDs each node issues per ms")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--etcd-endpoints", args->endpoints,
                  "HOST:PORT,... of a running etcd instead of a private cluster");
  cmd->add_option("--etcd-binary", args->config.etcd_binary, "the etcd to run (default: etcd-server's)");
  cmd->add_option("--keep-dir", args->config.keep_dir, "keep the nodes' files here");
  cmd->add_option("--out", args->out, "write the runs as JSON (timelines included) to FILE");
  cmd->add_flag("--quiet", args->quiet, "no progress on stderr");
  cmd->add_flag("--rates", args->rates,
                "measure lease renewals/s against etcd puts/s instead of running scenarios");
  cmd->add_option("--rate-seconds", args->rate_options.seconds, "seconds per rate point")
      ->capture_default_str()->check(FiniteRange(0.5, 60.0));
  cmd->add_flag("!--no-check-perf", args->rate_options.etcdctl_check_perf,
                "--rates without etcdctl check perf (60 s)");
  cmd->callback([args, gen_bits] {
    args->gen_bits_given = gen_bits->count() > 0;
    try {
      run(*args);
    } catch (const coord::EtcdMissing& e) {
      fmt::print(stderr, "idbench: {}\n", e.what());
      throw CLI::RuntimeError(kExitMissingTool);
    }
  });
}

}  // namespace idbench::cli
