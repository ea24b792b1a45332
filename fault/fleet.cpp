// fleet.cpp — the node processes of a run under faults (see fleet.hpp).
#include "fault/fleet.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "fault/timeline.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/text_tail.hpp"

namespace idbench::fault {
namespace {

// A node that failed is given this long to end and leave its status (it printed its error and
// is exiting) before it is named as one that did not answer.
constexpr std::int64_t kFailedNodeGraceNs = 1'000'000'000;

// The last words of a node's stderr on one line (plumbing/text_tail.hpp), "(no message)" if
// none.
std::string stderr_end(const std::string& text) {
  const std::string tail = plumbing::text_tail(text);
  return tail.empty() ? "(no message)" : tail;
}

}  // namespace

Fleet::Fleet(Launcher launcher, std::int64_t ready_timeout_ns, FailureNamer namer)
    : launcher_(std::move(launcher)), ready_timeout_ns_(ready_timeout_ns), namer_(std::move(namer)) {}

Fleet::~Fleet() { kill_all(); }

Fleet::Node& Fleet::at(int k) {
  if (k < 0 || k >= size()) throw std::out_of_range(fmt::format("no node {} in the fleet", k));
  return nodes_[static_cast<std::size_t>(k)];
}

const Fleet::Node& Fleet::at(int k) const {
  if (k < 0 || k >= size()) throw std::out_of_range(fmt::format("no node {} in the fleet", k));
  return nodes_[static_cast<std::size_t>(k)];
}

std::string Fleet::start(int k) {
  if (k == size()) nodes_.emplace_back();
  Node& n = at(k);
  if (n.proc && n.proc->running()) {
    throw std::logic_error(fmt::format("node {} is still running: kill it before a restart", k));
  }
  ++n.incarnation;
  n.paused = false;
  NodeLaunch launch = launcher_(k, n.incarnation);
  n.stderr_path = launch.stderr_path;
  plumbing::ChildSpec spec;
  spec.argv = std::move(launch.argv);
  spec.env = std::move(launch.env);
  spec.in = plumbing::Stdio::pipe();
  spec.out = plumbing::Stdio::pipe();
  spec.err = plumbing::Stdio::file(launch.stderr_path);
  n.proc.reset();  // the last incarnation's pipes closed before the next one's are made
  n.proc = std::make_unique<plumbing::ChildProcess>(spec);
  const auto line = read_line(k);
  if (!line) fail(k, "did not start");
  return *line;
}

std::optional<std::string> Fleet::read_line(int k) {
  return process(k).read_line(plumbing::monotonic_ns() + ready_timeout_ns_);
}

void Fleet::fail(int k, std::string_view what) {
  Node& n = at(k);
  std::optional<int> status;
  if (n.proc) status = n.proc->wait_until(plumbing::monotonic_ns() + kFailedNodeGraceNs);
  throw_failure(k, what, status);
}

void Fleet::throw_failure(int k, std::string_view what, std::optional<int> status) {
  const Node& n = at(k);
  NodeFailure f;
  f.node = k;
  f.incarnation = n.incarnation;
  f.what = std::string(what);
  f.status = status;
  f.stderr_path = n.stderr_path;
  f.stderr_text = plumbing::read_text_file(n.stderr_path);
  if (namer_) namer_(f);
  throw Error(fmt::format("node {} (incarnation {}) {} ({}): {}", k, f.incarnation, what,
                                    f.status ? fmt::format("exit status {}", *f.status) : "no answer",
                                    stderr_end(f.stderr_text)));
}

void Fleet::pause(int k) {
  process(k).signal(SIGSTOP);
  at(k).paused = true;
}

void Fleet::resume(int k) {
  process(k).signal(SIGCONT);
  at(k).paused = false;
}

void Fleet::kill(int k) {
  process(k).kill_and_reap();
  at(k).paused = false;
}

bool Fleet::running(int k) const {
  const Node& n = at(k);
  return n.proc && n.proc->running();
}

bool Fleet::paused(int k) const { return at(k).paused; }
int Fleet::incarnation(int k) const { return at(k).incarnation; }
std::string Fleet::stderr_path(int k) const { return at(k).stderr_path; }

plumbing::ChildProcess& Fleet::process(int k) {
  Node& n = at(k);
  if (!n.proc) throw std::logic_error(fmt::format("node {} was never started", k));
  return *n.proc;
}

void Fleet::check() {
  for (int k = 0; k < size(); ++k) {
    if (running(k) && process(k).try_wait()) fail(k, "ended early");
  }
}

void Fleet::watch_until(std::int64_t deadline_mono_ns) {
  wait_watching(deadline_mono_ns, [this] { check(); });
}

void Fleet::stop(const StopPlan& plan) {
  // Only the nodes running now: a node killed by the scenario and not restarted is done.
  std::vector<int> live;
  for (int k = 0; k < size(); ++k) {
    if (!running(k)) continue;
    live.push_back(k);
    if (paused(k)) resume(k);  // a stopped process cannot see its stop
    if (plan.close_stdin) process(k).close_stdin();
  }
  for (const int k : live) {
    const auto status = process(k).wait_until(plan.deadline_mono_ns);
    if (!status) {
      kill_all();  // named as still running, then nothing is left
      throw_failure(k, "did not stop by its deadline", std::nullopt);
    }
    if (*status != 0) fail(k, "failed");
  }
}

void Fleet::kill_all() {
  for (Node& n : nodes_) {
    if (n.proc && n.proc->running()) n.proc->kill_and_reap();
  }
}

}  // namespace idbench::fault
