// fleet.hpp — the node processes of a run under faults: started, watched, signalled, killed,
// restarted and stopped in one place, for chaos/ (generator nodes under a faked clock),
// coord/ (worker-id nodes leasing from etcd) and real/ (real-chaos's client nodes, each
// asking an adapter for IDs).
//
//   fault::Fleet fleet(
//       [&](int node, int incarnation) {
//         return fault::NodeLaunch{{bin, "--index", std::to_string(node)}, std::nullopt,
//                                  fmt::format("{}/node-{}.inc-{}.err", dir, node, incarnation)};
//       },
//       10'000'000'000);                        // ready timeout
//   std::string first = fleet.start(0);         // node 0's first line ("ready"), or it fails
//   fleet.pause(0); fleet.resume(0);            // SIGSTOP, SIGCONT
//   fleet.kill(0); fleet.start(0);              // kill -9, then incarnation 1 of node 0
//   fleet.watch_until(deadline_mono_ns);        // fails at once when a node ends before its time
//   fleet.stop({.close_stdin = true, .deadline_mono_ns = ...});  // every node ends with 0
//
// A node is a plumbing::ChildProcess: its own process group, stdin and stdout piped for a line
// protocol (process(k)), stderr to the file its launch names. Node k's launch is asked of the
// launcher for each incarnation, so a restart writes a new stderr file and may change its
// arguments.
//
// Failures (a node that does not answer, ends early, fails its stop) all go through fail():
// the fleet gathers the node's status (waiting up to 1 s for a node that is ending) and its
// stderr, hands them to the failure namer given at construction (which may throw its own
// error: a program's error file, an etcd that did not answer) and, if the namer returns,
// throws Error "node K (incarnation I) WHAT (exit status S): LAST STDERR".
// Nothing is left behind: the destructor kills (SIGKILL to the group) and reaps every node
// still running, on every path, error or not.
//
// Durations and deadlines are CLOCK_MONOTONIC ns (plumbing::monotonic_ns()).
//
// Thread safety: thread-compatible. Use from one thread that outlives the fleet (the nodes'
// PR_SET_PDEATHSIG is tied to the thread that forked them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/child_process.hpp"

namespace idbench::fault {

// How to start one incarnation of a node.
struct NodeLaunch {
  std::vector<std::string> argv;                // argv[0] is the executable's path
  std::optional<std::vector<std::string>> env;  // the complete environment; nullopt: ours
  std::string stderr_path;                      // truncated at each start
};

// What the fleet knows of a node that failed, for the failure namer.
struct NodeFailure {
  int node = 0;
  int incarnation = 0;
  std::string what;           // "did not start", "ended early", "failed", "did not stop", ...
  std::optional<int> status;  // exit status (or 128 + signal); nullopt: still running
  std::string stderr_path;
  std::string stderr_text;    // the whole stderr file (at most 1 MiB)
};

class Fleet {
 public:
  using Launcher = std::function<NodeLaunch(int node, int incarnation)>;
  // Throws its own error for the failures it can name better; returning leaves the naming to
  // the fleet (see above).
  using FailureNamer = std::function<void(const NodeFailure&)>;

  Fleet(Launcher launcher, std::int64_t ready_timeout_ns, FailureNamer namer = {});
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  int size() const { return static_cast<int>(nodes_.size()); }

  // k == size(): starts a new node (incarnation 0); k < size(): starts node k again, one
  // incarnation up (it must not be running: kill() it first). Returns the node's first line
  // on stdout; a node that prints none within the ready timeout fails ("did not start").
  std::string start(int k);

  // One more line from node k within the ready timeout; nullopt at EOF or the timeout.
  std::optional<std::string> read_line(int k);
  // Fails node k (see above): never returns.
  [[noreturn]] void fail(int k, std::string_view what);

  void pause(int k);   // SIGSTOP to its group
  void resume(int k);  // SIGCONT to its group
  // kill -9 of its group and reap: nothing of it is left when this returns.
  void kill(int k);

  bool running(int k) const;
  bool paused(int k) const;
  int incarnation(int k) const;
  // The node's process, for its line protocol (send_line) and its pid.
  plumbing::ChildProcess& process(int k);
  std::string stderr_path(int k) const;

  // Fails ("ended early") the first node found ended that was not killed or stopped here.
  // Never blocks.
  void check();
  // Sleeps until `deadline_mono_ns` in short steps, calling check() and throwing
  // plumbing::Interrupted on a signal.
  void watch_until(std::int64_t deadline_mono_ns);

  struct StopPlan {
    bool close_stdin = false;         // nodes that stop at EOF on stdin (coord's)
    std::int64_t deadline_mono_ns = 0;  // every node must have ended by then
  };
  // Resumes paused nodes, closes their stdin if asked and waits for each: a node that ends
  // with a non-zero status fails ("failed"); one still running at the deadline is killed,
  // with every other, and fails ("did not stop by its deadline", no status). Nodes not
  // running when it is called (killed and not restarted) are left out.
  void stop(const StopPlan& plan);

 private:
  struct Node {
    std::unique_ptr<plumbing::ChildProcess> proc;
    int incarnation = -1;
    bool paused = false;
    std::string stderr_path;
  };
  Node& at(int k);
  const Node& at(int k) const;
  [[noreturn]] void throw_failure(int k, std::string_view what, std::optional<int> status);
  void kill_all();

  Launcher launcher_;
  std::int64_t ready_timeout_ns_;
  FailureNamer namer_;
  std::vector<Node> nodes_;
};

}  // namespace idbench::fault
