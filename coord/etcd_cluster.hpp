// etcd_cluster.hpp — a private etcd cluster for one run: N members (default 3) from Debian's
// etcd-server on loopback ports, each with its own data directory in one idbench temp dir,
// and the member controls the fault scenarios need.
//
//   EtcdCluster etcd({});                 // started; a majority answers a linearizable read
//   EtcdClient client(etcd.endpoints());
//   etcd.kill9(*etcd.leader());  ...  etcd.start(i);     // leader killed, later restarted
//   etcd.pause(i); etcd.resume(i);                        // SIGSTOP / SIGCONT one member
//
// Nothing outlives the run, as for the databases (plumbing/db_server.hpp): every member is a
// plumbing::ChildProcess (own process group, PR_SET_PDEATHSIG), an InterruptGuard kills them
// on SIGINT/SIGTERM/SIGHUP, the destructor kills them and removes the directory, and the next
// start sweeps directories whose owner died (`idbench-etcd-<pid>-*`).
//
// Thread safety: thread-compatible.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coord/etcd_client.hpp"
#include "generators/errors.hpp"

namespace idbench::coord {

// etcd is not installed: exit 4 (kExitMissingTool); the message names the Debian package.
class EtcdMissing : public Error {
 public:
  using Error::Error;
};

struct EtcdClusterOptions {
  int members = 3;
  int heartbeat_ms = 100;   // etcd's --heartbeat-interval
  int election_ms = 1000;   // etcd's --election-timeout (leases shorter than 1.5× are raised)
  std::string etcd_binary;  // empty: `etcd` from etcd-server
};

class EtcdCluster {
 public:
  // Sweeps stale leftovers, starts every member and waits (at most 30 s) until a majority
  // answers. Throws EtcdMissing, or Error with the members' log tails.
  explicit EtcdCluster(EtcdClusterOptions options);
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int members() const;
  const std::vector<Endpoint>& endpoints() const;
  const std::string& dir() const;
  pid_t pid(int member) const;  // -1 when not running
  bool running(int member) const;

  // The member that leads now (asked of the running members); nullopt during an election.
  std::optional<int> leader() const;

  void start(int member);  // on its existing data directory; waits until it answers
  void stop(int member);   // SIGTERM, then SIGKILL after 10 s
  void kill9(int member);  // a crash
  void pause(int member);  // SIGSTOP
  void resume(int member); // SIGCONT

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace idbench::coord
