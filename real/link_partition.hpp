// link_partition.hpp — a replication link cut, as a fault::Nemesis: a replica (a Redis replica,
// a PostgreSQL standby) reaches its master through a relay idbench starts (socat), and the
// partition stops the relay, so that what the master sends from then on never reaches the
// replica, as across a network that drops it.
//
//   LinkRelay relay = LinkRelay::tcp(master_port);            // the replica connects to
//   ... replica of 127.0.0.1:relay.port() ...                   // relay.port() instead
//   LinkPartitionNemesis cut(relay);
//   st.play(cut, {.op = "partition", .what = "the replication link cut"}, ...);
//   ... the master serves on; it is killed ...
//   st.play(cut, {.op = "drop", .kind = "harness", .what = "..."}, ...);
//   ... the replica, having seen its link end, promoted ...
//
// Verbs:
//   "partition"  the relay stopped (SIGSTOP to its process group): it reads nothing more, so
//                the master's bytes stay in the kernel's buffers between the master and the
//                relay, then in the master's own output buffer;
//   "drop"       the relay killed (SIGKILL): its connections end and what they held is gone,
//                as the network's packets in flight are when a partitioned master dies.
//
// Why a relay and not the replica paused: a paused replica (SIGSTOP) leaves the master's bytes
// in its own socket's receive buffer, hundreds of kilobytes on loopback, and reads them when it
// resumes, so its promotion would miss nothing a network would have lost. Why socat: a
// well-kept relay that forks a process per connection, all in its process group, which one
// signal stops; firewall rules (iptables) need privileges idbench does not have as any user.
//
// Nothing is left: socat runs as a contained child (plumbing/child_process.hpp), so it and
// every connection it forked end with the relay, with idbench, even killed with -9.
//
// Thread safety: thread-compatible.
#pragma once

#include <memory>
#include <string>

#include "fault/nemesis.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::real {

class LinkRelay {
 public:
  // Listens on a loopback port chosen free now, relaying to 127.0.0.1:`target_port`.
  static LinkRelay tcp(int target_port);
  // Listens on PostgreSQL's socket for `port` (<dir>/.s.PGSQL.<port>) in a directory of its
  // own that `user` can reach, relaying to the same socket in `target_dir`.
  static LinkRelay postgres(const std::string& target_dir, int port,
                            const std::optional<plumbing::RunAs>& user);

  LinkRelay(LinkRelay&&) noexcept = default;
  LinkRelay& operator=(LinkRelay&&) noexcept = default;
  ~LinkRelay();

  int port() const { return port_; }                       // tcp(): where it listens
  const std::string& dir() const { return dir_->path(); }  // postgres(): its socket's directory
  // What it relays, for a log line: "127.0.0.1:40411 → 127.0.0.1:40409".
  const std::string& describe() const { return describe_; }

  void stop_relaying();  // SIGSTOP to the relay's group
  void drop();           // SIGKILL: every connection ends; idempotent
  bool running() const { return child_ != nullptr && child_->running(); }

 private:
  LinkRelay(const std::string& listen, const std::string& target, std::string describe,
            std::unique_ptr<plumbing::TempDir> dir, int port);

  std::unique_ptr<plumbing::TempDir> dir_;
  std::unique_ptr<plumbing::ChildProcess> child_;
  int port_ = 0;
  std::string describe_;
};

class LinkPartitionNemesis : public fault::Nemesis {
 public:
  explicit LinkPartitionNemesis(LinkRelay& relay) : relay_(relay) {}
  std::string_view kind() const override { return "link"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;

 private:
  LinkRelay& relay_;
};

}  // namespace idbench::real
