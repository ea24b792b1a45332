// driver.cpp — a worker-id run: cluster, nodes (fault::Fleet), the scenario's schedule played
// by fault::play_schedule, each fault by the nemesis scenario.hpp's kFaultPlays names
// (fault::ProcessNemesis for the nodes, EtcdNemesis for the members) on the run's
// fault::Timeline, the analysis.
#include "coord/driver.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "coord/etcd_cluster.hpp"
#include "coord/etcd_nemesis.hpp"
#include "coord/scenario.hpp"
#include "fault/fleet.hpp"
#include "fault/nemesis.hpp"
#include "fault/schedule.hpp"
#include "fault/timeline.hpp"
#include "generators/registry.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::coord {

namespace {

namespace fs = std::filesystem;
using plumbing::kMsNs;
constexpr std::int64_t kReadyTimeoutNs = 15'000 * kMsNs;

bool fits(const Variant& v) {
  return v.family == "snowflake" && v.uses_layout && v.width == IdWidth::bits64 &&
         v.node_ids == NodeIds::one;
}

std::string node_binary(const std::string& given) {
  return given.empty() ? plumbing::program_beside_self("idbench-coord-node") : given;
}

// Node k's endpoints: every member, starting at member k (spreads the nodes); node 0 of a
// cut-off scenario talks to member 0 alone, and a fresh node of it never to member 0.
std::vector<Endpoint> endpoints_for(int k, const std::vector<Endpoint>& all, bool cut_off,
                                    bool fresh) {
  if (cut_off && k == 0) return {all[0]};
  std::vector<Endpoint> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::size_t m = (k + i) % all.size();
    if (!(cut_off && fresh && m == 0)) out.push_back(all[m]);
  }
  return out;
}

// The run: the cluster (or given endpoints), the nodes started through the fleet, the
// scenario's faults played on the timeline, the nodes stopped, their logs analysed.
class WorkerRun {
 public:
  WorkerRun(const WorkerRunConfig& c, std::FILE* progress)
      : c_(c),
        timeline_("worker-ids", fmt::format("{} {}", c.scenario, name_of(c.behaviour)), progress),
        fleet_([this](int k, int incarnation) { return launch(k, incarnation); }, kReadyTimeoutNs,
               name_failure),
        processes_(fleet_, {.start = [this](int) { start_node(true); }}) {
    result_.config = c;
    result_.variant = c.variant.empty() ? default_worker_variant() : c.variant;
    check_worker_variant(result_.variant);
    const Layout layout = worker_layout(c.layout, c.behaviour, c.gen_bits);
    result_.layout = layout.spec();
    result_.gen_bits = c.behaviour == Behaviour::in_id ? layout.gen_bits() : 0;
    const WorkerScenario* s = find_worker_scenario(c.scenario);
    if (!s) throw Error(fmt::format("unknown worker-id scenario '{}'", c.scenario));
    s_ = s;
    result_.scenario_summary = std::string(s->summary);
    result_.margin_ms = c.ttl_s * 1000 / 4;
    check_config(c, *s);
    binary_ = node_binary(c.node_binary);
  }

  WorkerRunResult play() {
    if (c_.etcd) start_etcd();
    tmp_.emplace("idbench-workerids");
    dir_ = c_.keep_dir.empty() ? tmp_->path() : c_.keep_dir;
    if (!c_.keep_dir.empty()) fs::create_directories(dir_);
    for (int k = 0; k < c_.nodes; ++k) start_node(false);
    timeline_.start_in();
    result_.start_ns = timeline_.start_mono_ns();
    const std::int64_t ttl_ns = std::int64_t{c_.ttl_s} * 1000 * kMsNs;
    play_faults(ttl_ns);
    wait(result_.start_ns + static_cast<std::int64_t>(s_->duration_ttl * ttl_ns));
    result_.end_ns = plumbing::monotonic_ns();
    stop_nodes();
    for (const fault::FaultRecord& r : timeline_.history()) result_.faults.push_back({r.mono_ns, r.what});
    std::vector<NodeLog> logs;
    for (int k = 0; k < fleet_.size(); ++k) logs.push_back(read_node_log(dir_, k));
    result_.analysis = analyse(logs, result_.end_ns);
    result_.verdict = judge(result_.analysis);
    return std::move(result_);
  }

 private:
  static void check_config(const WorkerRunConfig& c, const WorkerScenario& s) {
    if (c.nodes < 1 || c.nodes > 64) throw Error("--nodes must be 1 to 64");
    if (c.ttl_s < 1 || c.ttl_s > 60) throw Error("--ttl must be 1 to 60 s");
    if (c.ids_per_ms < 1 || c.ids_per_ms > 1000) throw Error("--ids-per-ms must be 1 to 1000");
    if (!c.etcd && c.behaviour != Behaviour::unfenced) {
      throw Error("the deadline and in-id fences need --worker-ids etcd (a lease to fence on)");
    }
    if (!c.etcd && s.needs_cluster_control()) {
      throw Error(fmt::format("scenario {} plays etcd members: it needs --worker-ids etcd", s.name));
    }
    if (!c.endpoints.empty() && s.needs_cluster_control()) {
      throw Error(fmt::format("scenario {} plays etcd members: not with --etcd-endpoints", s.name));
    }
  }

  void start_etcd() {
    if (!c_.endpoints.empty()) {
      EtcdClient probe(c_.endpoints, 2000 * kMsNs);
      try {
        probe.check_quorum();
      } catch (const EtcdUnavailable& e) {
        throw EtcdUnavailable(fmt::format("etcd at {} is unreachable or has no quorum ({})",
                                          describe(c_.endpoints), e.what()));
      }
      endpoints_ = c_.endpoints;
      return;
    }
    timeline_.say("starting a 3-member etcd cluster");
    cluster_ = std::make_unique<EtcdCluster>(EtcdClusterOptions{
        .members = 3, .heartbeat_ms = c_.ttl_s * 50, .election_ms = c_.ttl_s * 500,
        .etcd_binary = c_.etcd_binary});
    endpoints_ = cluster_->endpoints();
    members_.emplace(*cluster_);
  }

  // A node is never restarted here (its files carry no incarnation); it runs with an empty
  // environment.
  fault::NodeLaunch launch(int k, int /*incarnation*/) const {
    std::vector<std::string> argv = {
        binary_, "--index", std::to_string(k), "--variant", result_.variant,
        "--layout", result_.layout, "--behaviour", std::string(name_of(c_.behaviour)),
        "--worker-ids", c_.etcd ? "etcd" : "static", "--static-id", std::to_string(k),
        "--ttl", std::to_string(c_.ttl_s), "--margin-ms", std::to_string(result_.margin_ms),
        "--ids-per-ms", std::to_string(c_.ids_per_ms), "--out-dir", dir_};
    if (c_.etcd) {
      const bool fresh = fresh_[static_cast<std::size_t>(k)];
      argv.insert(argv.end(), {"--endpoints", describe(endpoints_for(k, endpoints_,
                                                                     s_->node0_member0_only, fresh))});
    }
    if (k == 0 && s_->inject_pause_at_ttl >= 0) {
      const double ttl_ms = c_.ttl_s * 1000.0;
      argv.insert(argv.end(),
                  {"--inject-pause-at-ms", std::to_string(std::llround(s_->inject_pause_at_ttl * ttl_ms)),
                   "--inject-pause-ms", std::to_string(std::llround(s_->inject_pause_ttl * ttl_ms))});
    }
    return {std::move(argv), std::vector<std::string>{}, fmt::format("{}/node-{}.err", dir_, k)};
  }

  // A node that could not reach etcd to claim its first id: etcd's fault, not the node's.
  static void name_failure(const fault::NodeFailure& f) {
    if (f.what == "did not start" && f.stderr_text.find("did not answer") != std::string::npos) {
      throw EtcdUnavailable(
          fmt::format("node {} could not claim a worker id: {}", f.node, f.stderr_text));
    }
  }

  // Returns the new node's index.
  int start_node(bool fresh) {
    const int k = fleet_.size();
    fresh_.push_back(fresh);
    if (fleet_.start(k) != "ready") fleet_.fail(k, "did not start");
    return k;
  }

  // Until the schedule's next instant; a node that ended before the stop fails the run then.
  void wait(std::int64_t mono_ns) {
    timeline_.wait_until(mono_ns, [this] { fleet_.check(); });
  }

  void play_faults(std::int64_t ttl_ns);

  // Members resumed (a paused member would hold the nodes' lease revocations), then the nodes
  // stop at EOF on stdin.
  void stop_nodes() {
    if (members_) members_->teardown(timeline_);
    fleet_.stop({.close_stdin = true, .deadline_mono_ns = plumbing::monotonic_ns() + 20'000 * kMsNs});
  }

  const WorkerRunConfig& c_;
  fault::Timeline timeline_;
  const WorkerScenario* s_ = nullptr;
  WorkerRunResult result_;
  std::string binary_;
  std::string dir_;
  std::vector<bool> fresh_;  // per node: started late, as a replacement
  std::unique_ptr<EtcdCluster> cluster_;
  std::vector<Endpoint> endpoints_;
  std::optional<EtcdNemesis> members_;  // with a private cluster only
  std::optional<plumbing::TempDir> tmp_;
  fault::Fleet fleet_;  // its nodes end before their directory and etcd
  fault::ProcessNemesis processes_;  // only refers to the fleet
};

// The scenario's schedule, each fault played by the nemesis of its kind (kFaultPlays) and
// recorded when it is done: the processes' for the nodes (a fresh node is the fleet's next
// index), the members' for etcd, which needs the private cluster (check_config refused the
// scenarios that play members without one).
void WorkerRun::play_faults(std::int64_t ttl_ns) {
  std::vector<fault::ScheduledStep> steps;
  for (const FaultEvent& e : s_->events) steps.push_back(scheduled(e, ttl_ns));
  fault::Nemeses nemeses;
  nemeses.add(processes_);
  if (members_) {
    nemeses.add(*members_);
  } else {
    nemeses.lack(EtcdNemesis::kRepertoire.nemesis, "needs the run's own etcd cluster");
  }
  fault::play_schedule(steps, nemeses, timeline_,
                       {.watch = [this] { fleet_.check(); },
                        .new_node = [this] { return fleet_.size(); },
                        .stamp = fault::Stamp::when_done});
}

}  // namespace

std::string default_worker_variant() {
  for (const Variant& v : variants()) {
    if (fits(v)) return std::string(v.name);
  }
  throw Error("no 64-bit Snowflake-family variant taking one node id is registered");
}

void check_worker_variant(const std::string& name) {
  const Variant* v = find_variant(name);
  if (!v) throw Error(fmt::format("unknown variant '{}'", name));
  if (!fits(*v)) {
    throw Error(fmt::format("variant {} is not a 64-bit Snowflake-family variant taking one node "
                            "id per process: worker ids do not apply", name));
  }
}

WorkerRunResult run_worker_ids(const WorkerRunConfig& config, std::FILE* progress) {
  plumbing::InterruptGuard guard;
  WorkerRun run(config, progress);
  return run.play();
}

}  // namespace idbench::coord
