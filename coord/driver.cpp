// driver.cpp — a worker-id run: cluster, nodes, the scenario's faults, the analysis.
#include "coord/driver.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "coord/etcd_cluster.hpp"
#include "coord/scenario.hpp"
#include "generators/registry.hpp"
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
  if (!given.empty()) return given;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = self.parent_path() / "idbench-coord-node";
  if (ec || !fs::exists(beside)) {
    throw Error("idbench-coord-node not found beside this executable; build it "
                "(cmake --build --preset release --target idbench-coord-node)");
  }
  return beside.string();
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

class Run {
 public:
  Run(const WorkerRunConfig& c, std::FILE* progress) : c_(c), progress_(progress) {
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
    if (c.nodes < 1 || c.nodes > 64) throw Error("--nodes must be 1 to 64");
    if (c.ttl_s < 1 || c.ttl_s > 60) throw Error("--ttl must be 1 to 60 s");
    if (c.ids_per_ms < 1 || c.ids_per_ms > 1000) throw Error("--ids-per-ms must be 1 to 1000");
    if (!c.etcd && c.behaviour != Behaviour::unfenced) {
      throw Error("the deadline and in-id fences need --worker-ids etcd (a lease to fence on)");
    }
    if (!c.etcd && s->needs_cluster_control) {
      throw Error(fmt::format("scenario {} plays etcd members: it needs --worker-ids etcd", s->name));
    }
    if (!c.endpoints.empty() && s->needs_cluster_control) {
      throw Error(fmt::format("scenario {} plays etcd members: not with --etcd-endpoints", s->name));
    }
    binary_ = node_binary(c.node_binary);
  }

  WorkerRunResult play() {
    if (c_.etcd) start_etcd();
    plumbing::TempDir tmp("idbench-workerids");
    dir_ = c_.keep_dir.empty() ? tmp.path() : c_.keep_dir;
    if (!c_.keep_dir.empty()) fs::create_directories(dir_);
    for (int k = 0; k < c_.nodes; ++k) start_node(false);
    result_.start_ns = plumbing::monotonic_ns();
    const std::int64_t ttl_ns = std::int64_t{c_.ttl_s} * 1000 * kMsNs;
    for (const FaultEvent& e : s_->events) {
      sleep_until(result_.start_ns + static_cast<std::int64_t>(e.at_ttl * ttl_ns));
      apply(e);
    }
    sleep_until(result_.start_ns + static_cast<std::int64_t>(s_->duration_ttl * ttl_ns));
    result_.end_ns = plumbing::monotonic_ns();
    stop_nodes();
    std::vector<NodeLog> logs;
    for (int k = 0; k < static_cast<int>(nodes_.size()); ++k) logs.push_back(read_node_log(dir_, k));
    result_.analysis = analyse(logs, result_.end_ns);
    result_.verdict = judge(result_.analysis);
    return std::move(result_);
  }

 private:
  void say(const std::string& line) {
    if (progress_) fmt::print(progress_, "worker-ids {} {}: {}\n", c_.scenario, name_of(c_.behaviour), line);
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
    say("starting a 3-member etcd cluster");
    cluster_ = std::make_unique<EtcdCluster>(EtcdClusterOptions{
        .members = 3, .heartbeat_ms = c_.ttl_s * 50, .election_ms = c_.ttl_s * 500,
        .etcd_binary = c_.etcd_binary});
    endpoints_ = cluster_->endpoints();
  }

  void start_node(bool fresh) {
    const int k = static_cast<int>(nodes_.size());
    std::vector<std::string> argv = {
        binary_, "--index", std::to_string(k), "--variant", result_.variant,
        "--layout", result_.layout, "--behaviour", std::string(name_of(c_.behaviour)),
        "--worker-ids", c_.etcd ? "etcd" : "static", "--static-id", std::to_string(k),
        "--ttl", std::to_string(c_.ttl_s), "--margin-ms", std::to_string(result_.margin_ms),
        "--ids-per-ms", std::to_string(c_.ids_per_ms), "--out-dir", dir_};
    if (c_.etcd) {
      argv.insert(argv.end(), {"--endpoints", describe(endpoints_for(k, endpoints_,
                                                                     s_->node0_member0_only, fresh))});
    }
    if (k == 0 && s_->inject_pause_at_ttl >= 0) {
      const double ttl_ms = c_.ttl_s * 1000.0;
      argv.insert(argv.end(),
                  {"--inject-pause-at-ms", std::to_string(std::llround(s_->inject_pause_at_ttl * ttl_ms)),
                   "--inject-pause-ms", std::to_string(std::llround(s_->inject_pause_ttl * ttl_ms))});
    }
    const std::string err = fmt::format("{}/node-{}.err", dir_, k);
    nodes_.push_back(std::make_unique<plumbing::ChildProcess>(argv, std::vector<std::string>{}, err));
    const auto line = nodes_.back()->read_line(plumbing::monotonic_ns() + kReadyTimeoutNs);
    if (!line || *line != "ready") {
      const std::string why = plumbing::read_text_file(err);
      if (why.find("did not answer") != std::string::npos) {
        throw EtcdUnavailable(fmt::format("node {} could not claim a worker id: {}", k, why));
      }
      throw Error(fmt::format("node {} did not start: {}", k, why.empty() ? "no message" : why));
    }
  }

  void sleep_until(std::int64_t mono_ns) {
    while (plumbing::monotonic_ns() < mono_ns) {
      plumbing::throw_if_interrupted();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  void log(const std::string& what) {
    result_.faults.push_back({plumbing::monotonic_ns(), what});
    say(what);
  }

  void apply(const FaultEvent& e);

  void stop_nodes() {
    if (cluster_) {
      for (int m = 0; m < cluster_->members(); ++m) cluster_->resume(m);
    }
    for (auto& n : nodes_) n->signal(SIGCONT);
    for (auto& n : nodes_) n->close_stdin();
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      const auto status = nodes_[k]->wait_until(plumbing::monotonic_ns() + 20'000 * kMsNs);
      if (status != 0) {
        throw Error(fmt::format("node {} ended with status {}: {}", k,
                                status ? std::to_string(*status) : "(timed out)",
                                plumbing::read_text_file(fmt::format("{}/node-{}.err", dir_, k))));
      }
    }
  }

  const WorkerRunConfig& c_;
  std::FILE* progress_;
  const WorkerScenario* s_ = nullptr;
  WorkerRunResult result_;
  std::string binary_;
  std::string dir_;
  std::unique_ptr<EtcdCluster> cluster_;
  std::vector<Endpoint> endpoints_;
  std::vector<std::unique_ptr<plumbing::ChildProcess>> nodes_;
  std::optional<int> down_member_;
};

void Run::apply(const FaultEvent& e) {
  switch (e.kind) {
    case FaultKind::pause_node: nodes_[0]->signal(SIGSTOP); break;
    case FaultKind::resume_node: nodes_[0]->signal(SIGCONT); break;
    case FaultKind::start_fresh: start_node(true); break;
    case FaultKind::kill_leader: {
      down_member_ = cluster_->leader();
      if (!down_member_) throw Error("etcd has no leader to kill");
      cluster_->kill9(*down_member_);
      return log(fmt::format("{} (member m{})", e.why, *down_member_));
    }
    case FaultKind::stop_follower: {
      const auto leader = cluster_->leader();
      down_member_ = leader && *leader == 0 ? 1 : 0;
      cluster_->stop(*down_member_);
      return log(fmt::format("{} (member m{})", e.why, *down_member_));
    }
    case FaultKind::restart_killed:
      if (down_member_) cluster_->start(*down_member_);
      break;
    case FaultKind::pause_member0: cluster_->pause(0); break;
    case FaultKind::resume_member0: cluster_->resume(0); break;
  }
  log(std::string(e.why));
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
  Run run(config, progress);
  return run.play();
}

}  // namespace idbench::coord
