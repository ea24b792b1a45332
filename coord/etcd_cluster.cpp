// etcd_cluster.cpp — a private N-member etcd cluster: ports, flags, start, wait, stop.
#include "coord/etcd_cluster.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "plumbing/child_process.hpp"
#include "plumbing/free_ports.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::coord {

namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;
constexpr std::int64_t kStartTimeoutNs = 30 * kSecondNs;

constexpr const char* kMissing =
    "etcd is not installed: --worker-ids etcd needs the Debian package etcd-server "
    "(apt-get install etcd-server etcd-client; ./run.sh installs them)";

}  // namespace

struct EtcdCluster::State {
  explicit State(EtcdClusterOptions o) : options(std::move(o)), dir("idbench-etcd") {}
  EtcdClusterOptions options;
  plumbing::InterruptGuard guard;  // before the members: outlives them
  plumbing::TempDir dir;
  std::string binary;
  std::vector<Endpoint> clients;
  std::vector<int> peer_ports;
  std::vector<std::unique_ptr<plumbing::ChildProcess>> members;

  std::string initial_cluster() const {
    std::string s;
    for (std::size_t i = 0; i < peer_ports.size(); ++i) {
      s += fmt::format("{}m{}=http://127.0.0.1:{}", i ? "," : "", i, peer_ports[i]);
    }
    return s;
  }

  std::vector<std::string> argv(int i) const {
    const std::string client = fmt::format("http://127.0.0.1:{}", clients[i].port);
    const std::string peer = fmt::format("http://127.0.0.1:{}", peer_ports[i]);
    return {binary, "--name", fmt::format("m{}", i),
            "--data-dir", fmt::format("{}/m{}", dir.path(), i),
            "--listen-client-urls", client, "--advertise-client-urls", client,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", initial_cluster(),
            "--initial-cluster-token", fmt::format("idbench-{}", ::getpid()),
            "--initial-cluster-state", "new",
            "--heartbeat-interval", std::to_string(options.heartbeat_ms),
            "--election-timeout", std::to_string(options.election_ms)};
  }

  void spawn(int i) {
    plumbing::ChildSpec spec;
    spec.argv = argv(i);
    spec.err = plumbing::Stdio::file(fmt::format("{}/m{}.log", dir.path(), i));
    members[i] = std::make_unique<plumbing::ChildProcess>(spec);
  }

  // "; m<i>'s log ends: <its last line>" for each member (or "is empty"): what went wrong
  // on one line, which is all a message has (the logs go with the directory).
  std::string log_ends() const {
    constexpr std::size_t kShown = 300;
    std::string s;
    for (std::size_t i = 0; i < members.size(); ++i) {
      std::string log = plumbing::read_text_file(fmt::format("{}/m{}.log", dir.path(), i));
      while (!log.empty() && (log.back() == '\n' || log.back() == '\r')) log.pop_back();
      if (log.empty()) {
        s += fmt::format("; m{}'s log is empty", i);
        continue;
      }
      std::string last = log.substr(log.rfind('\n') + 1);  // npos + 1 is 0: the only line
      if (last.size() > kShown) last = "..." + last.substr(last.size() - kShown);
      s += fmt::format("; m{}'s log ends: {}", i, last);
    }
    return s;
  }

  // Until a majority answers a linearizable read through member `via` (or any, when -1).
  void wait_ready(int via) {
    std::vector<Endpoint> at = via < 0 ? clients : std::vector<Endpoint>{clients[via]};
    EtcdClient probe(at, kSecondNs / 2);
    const std::int64_t deadline = plumbing::monotonic_ns() + kStartTimeoutNs;
    for (;;) {
      plumbing::throw_if_interrupted();
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (const auto status = members[i] ? members[i]->try_wait() : std::nullopt) {
          throw Error(fmt::format("etcd member m{} ({}) exited at start with status {}{}", i,
                                  binary, *status, log_ends()));
        }
      }
      try {
        probe.check_quorum();
        return;
      } catch (const EtcdUnavailable& e) {
        if (plumbing::monotonic_ns() > deadline) {
          throw Error(fmt::format("etcd did not answer within 30 s: {}{}", e.what(), log_ends()));
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
};

EtcdCluster::EtcdCluster(EtcdClusterOptions options) {
  std::string binary = options.etcd_binary.empty() ? plumbing::find_program("etcd")
                                                   : options.etcd_binary;
  if (binary.empty() || ::access(binary.c_str(), X_OK) != 0) throw EtcdMissing(kMissing);
  if (options.members < 1 || options.members > 9) throw Error("an etcd cluster has 1 to 9 members");
  state_ = std::make_unique<State>(std::move(options));
  State& st = *state_;
  st.binary = std::move(binary);
  const int n = st.options.members;
  const std::vector<int> ports = plumbing::free_loopback_ports(2 * n, "etcd");
  for (int i = 0; i < n; ++i) {
    st.clients.push_back({"127.0.0.1", ports[2 * i]});
    st.peer_ports.push_back(ports[2 * i + 1]);
  }
  st.members.resize(n);
  for (int i = 0; i < n; ++i) st.spawn(i);
  st.wait_ready(-1);
}

EtcdCluster::~EtcdCluster() {
  if (!state_) return;
  for (auto& m : state_->members) {
    if (m && m->running()) m->kill_and_reap();
  }
}

int EtcdCluster::members() const { return static_cast<int>(state_->members.size()); }
const std::vector<Endpoint>& EtcdCluster::endpoints() const { return state_->clients; }
const std::string& EtcdCluster::dir() const { return state_->dir.path(); }

bool EtcdCluster::running(int member) const {
  const auto& m = state_->members.at(member);
  return m && m->running();
}

pid_t EtcdCluster::pid(int member) const {
  return running(member) ? state_->members[member]->pid() : -1;
}

std::optional<int> EtcdCluster::leader() const {
  for (int i = 0; i < members(); ++i) {
    if (!running(i)) continue;
    try {
      EtcdClient one({state_->clients[i]}, kSecondNs / 2);
      const MemberStatus me = one.status_of(0);
      if (me.leader == 0) continue;
      for (int j = 0; j < members(); ++j) {
        if (!running(j)) continue;
        EtcdClient other({state_->clients[j]}, kSecondNs / 2);
        if (other.status_of(0).member_id == me.leader) return j;
      }
    } catch (const EtcdUnavailable&) {
    }
  }
  return std::nullopt;
}

void EtcdCluster::start(int member) {
  if (running(member)) return;
  state_->spawn(member);
  state_->wait_ready(member);
}

void EtcdCluster::stop(int member) {
  if (running(member)) state_->members[member]->stop(10 * kSecondNs);
}

void EtcdCluster::kill9(int member) {
  if (running(member)) state_->members[member]->kill_and_reap();
}

void EtcdCluster::pause(int member) {
  if (running(member)) state_->members[member]->signal(SIGSTOP);
}

void EtcdCluster::resume(int member) {
  if (running(member)) state_->members[member]->signal(SIGCONT);
}

}  // namespace idbench::coord
