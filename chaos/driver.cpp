// driver.cpp — one chaos run played (driver.hpp): node processes under a faked clock
// (clock_drive.hpp: libfaketime or the ptrace injector) started and stopped through
// fault::Fleet, the scenario's schedule played by fault::play_schedule on the run's two nemeses
// (the clocks' ClockNemesis, the processes' fault::ProcessNemesis), each event by the one
// scenario.hpp's kEventPlays names, on the run's fault::Timeline, then the analysis and the
// verdict. What the run plays is settled before (run_plan.hpp).
#include "chaos/driver.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "chaos/clock_drive.hpp"
#include "chaos/clock_nemesis.hpp"
#include "chaos/faketime.hpp"
#include "chaos/process.hpp"
#include "chaos/run_plan.hpp"
#include "chaos/scenario.hpp"
#include "fault/fleet.hpp"
#include "fault/nemesis.hpp"
#include "fault/schedule.hpp"
#include "fault/timeline.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/exit_codes.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"
#include "plumbing/text_tail.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

// Start-up of a node (exec, dynamic loading, libfaketime, generator) takes milliseconds; ten
// seconds means it is not coming.
constexpr std::int64_t kReadyTimeoutNs = 10'000'000'000;
// Between telling the nodes when to start and the start: enough to write every node's
// timestamp file and send every "go" line.
constexpr std::int64_t kStartMarginNs = 50'000'000;
// An external program answers its first request (its warm-up, node.hpp) between "go" and the
// start: an interpreter's lazy start-up (Python, Node.js) took over 1 s on a loaded 2-core
// machine.
constexpr std::int64_t kExecWarmUpNs = 2'000'000'000;
// A node stops by itself at the stop time, waits up to 200 ms for a thread blocked in next(),
// then writes its last records. Beyond this it is stuck.
constexpr std::int64_t kStopTimeoutNs = 5'000'000'000;
// A scenario event for every node is a fault step for every node.
static_assert(kAllNodes == fault::kNoNode);

// A directory the user named (--persist, --keep): created if missing, and proven writable by
// creating a file in it, so a read-only place fails here in one line, before anything runs
// (access(2) would not do: root passes it for a read-only directory).
std::string prepare_user_dir(const std::string& path, std::string_view flag) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
    throw Error(fmt::format("{} {}: not a directory", flag, path));
  }
  fs::create_directories(path, ec);
  if (ec) throw Error(fmt::format("{} {}: cannot create: {}", flag, path, ec.message()));
  std::string probe = fmt::format("{}/.idbench-probe-XXXXXX", path);
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    throw Error(fmt::format("{} {}: not writable: {}", flag, path, std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return fs::absolute(path, ec).string();
}

// The run's directory: a fresh temp directory removed at the end, or a kept one.
class RunDir {
 public:
  explicit RunDir(const std::string& keep) {
    if (keep.empty()) {
      temp_.emplace("idbench-chaos");
      path_ = temp_->path();
    } else {
      path_ = prepare_user_dir(keep, "--keep");
    }
  }
  const std::string& path() const { return path_; }

 private:
  std::optional<plumbing::TempDir> temp_;
  std::string path_;
};

std::string default_node_binary() { return plumbing::program_beside_self("idbench-chaos-node"); }

// Where a run's files and programs are.
struct RunPaths {
  std::string dir;
  std::string node_binary;
};

// The run: its nodes started, the scenario's events played on their clocks and processes,
// the nodes collected, the result judged.
class ChaosRun {
 public:
  ChaosRun(RunPlan plan, RunPaths paths, std::FILE* progress)
      : plan_(std::move(plan)),
        paths_(std::move(paths)),
        timeline_("chaos", std::string(plan_.scenario.name), progress),
        drive_(make_clock_drive(plan_.cfg.clock_injector, paths_.dir, plan_.cfg.nodes)),
        fleet_([this](int k, int incarnation) { return launch(k, incarnation); }, kReadyTimeoutNs,
               [this](const fault::NodeFailure& f) { name_failure(f); }),
        clocks_(nodes_, fleet_, *drive_),
        processes_(fleet_, process_hooks()) {
    for (int k = 0; k < plan_.cfg.nodes; ++k) {
      NodeClock n;
      n.index = k;
      n.facts.node_id = plan_.node_ids[static_cast<std::size_t>(k)];
      nodes_.push_back(std::move(n));
    }
  }

  RunResult play(std::int64_t began_mono_ns) {
    say_plan();
    for (auto& n : nodes_) spawn(n);
    start_all();
    play_events();
    wait(stop_mono_);
    collect_nodes();
    return result(began_mono_ns);
  }

 private:
  const RunConfig& cfg() const { return plan_.cfg; }

  void say_plan() const {
    const RunConfig& c = cfg();
    timeline_.say(
        fmt::format("{} · {} · {} node{} × {} thread{} · {} · {:.1f} s{}", c.variant, c.policy,
                    c.nodes, c.nodes == 1 ? "" : "s", c.threads, c.threads == 1 ? "" : "s",
                    c.rate > 0 ? fmt::format("{:.0f} IDs/s per node", c.rate) : "flat out",
                    plan_.scenario.duration_ms / 1000.0,
                    c.persist_dir.empty() ? "" : " · persisted high-water mark"));
  }

  // Until the next instant of the schedule, failing at once when a node ended before its time
  // (a program that failed ends its node at once: its error is reported then, not at the end).
  void wait(std::int64_t deadline_mono_ns) {
    timeline_.wait_until(deadline_mono_ns, [this] { fleet_.check(); });
  }

  // Each node's clock for a provisional start, so that it makes its first reservation on the
  // run's clock; the start is chosen once every node is armed (a slow disk delays it).
  void start_all() {
    set_start();
    for (auto& n : nodes_) fleet_.process(n.index).send_line("arm");  // their writes overlap
    for (auto& n : nodes_) await_armed(n);
    set_start();
    const std::int64_t start_true = timeline_.start_true_ns();
    for (auto& n : nodes_) {
      n.facts.incarnations.push_back({cfg().threads, start_true, stop_true_, false});
    }
    for (auto& n : nodes_) {
      fleet_.process(n.index).send_line(
          fmt::format("go {} {}", timeline_.start_mono_ns(), stop_mono_));
    }
  }

  // The run's instant 0, on both clocks, and every node's clock from it.
  void set_start() {
    timeline_.start_in(kStartMarginNs + (cfg().exec ? kExecWarmUpNs : 0));
    const std::int64_t start_true = timeline_.start_true_ns();
    stop_mono_ = timeline_.start_mono_ns() + plan_.scenario.duration_ms * 1'000'000;
    stop_true_ = start_true + plan_.scenario.duration_ms * 1'000'000;
    reference_offset_ns_ = plan_.reference_offset(start_true);
    for (auto& n : nodes_) {
      n.facts.clock_offset_ns = reference_offset_ns_ + plan_.skew_ns(n.index);
      n.clock = ClockModel(start_true, start_true + n.facts.clock_offset_ns);
      drive_->write(n, n.clock);
    }
  }

  // "arm": the node makes its first durable reservation on its run clock (node.hpp).
  void await_armed(NodeClock& n) {
    if (fleet_.read_line(n.index).value_or("") != "armed") fleet_.fail(n.index, "could not arm");
  }

  fault::NodeLaunch launch(int k, int incarnation) const;

  // A node's own program fault, when that is what ended it: one line, exit 2, as `generate`
  // reports it. Else the fleet names the node with its status and its last words.
  // A node the ptrace injector refused to fake (exit 3: not traceable, a vDSO it does not
  // recognise) is that refusal, exit 3: never a run on the true clock.
  void name_failure(const fault::NodeFailure& f) const {
    std::string program = read_text_file(
        fmt::format("{}/{}", paths_.dir, program_error_file_name(f.node, f.incarnation)));
    while (!program.empty() && program.back() == '\n') program.pop_back();
    if (!program.empty()) throw external::ProgramError(program);
    if (drive_->injector() == ClockInjector::ptrace && f.status == kExitRefused) {
      const std::string said = plumbing::text_tail(f.stderr_text, {.lines = 1});
      if (said.starts_with("idbench-inject:")) {
        throw Refused(fmt::format("node {}: {}", f.node, said));
      }
    }
  }

  // Starts node n (again, after a kill), reads its "ready T F" and sets its clock: until the
  // run's settings are written, the node (and an external program it started, which may read
  // the clock before its first request) reads the true time, or, restarted, its machine's
  // clock (under libfaketime, after a calibration it reads before its "ready").
  void spawn(NodeClock& n) {
    drive_->before_start(n, /*restarted=*/!n.facts.incarnations.empty());
    std::istringstream in(fleet_.start(n.index));
    std::string word;
    std::int64_t t = 0;
    std::int64_t f = 0;
    if (!(in >> word >> t >> f) || word != "ready") fleet_.fail(n.index, "did not start");
    drive_->ready(n, t, f);
    const std::int64_t now = plumbing::true_ns();
    drive_->write(n, fleet_.incarnation(n.index) == 0 ? ClockModel(now, now) : n.clock);
  }

  void play_events();
  fault::ProcessNemesis::Hooks process_hooks();
  void process_played(const fault::FaultStep& step, NodeClock& n, std::int64_t now);
  void restart(NodeClock& n);
  void collect_nodes();
  std::vector<LoggedEvent> logged_events() const;
  RunResult result(std::int64_t began_mono_ns) const;

  const RunPlan plan_;
  const RunPaths paths_;
  std::vector<NodeClock> nodes_;
  fault::Timeline timeline_;
  std::unique_ptr<ClockDrive> drive_;  // outlives the fleet: a node's page stays until it ends
  // The scenario event each record of the timeline played (its step and rate), by position.
  std::map<std::size_t, Event> played_;
  std::int64_t stop_mono_ = 0;
  std::int64_t stop_true_ = 0;
  std::int64_t reference_offset_ns_ = 0;
  fault::Fleet fleet_;  // its nodes are killed before the rest goes, while it is still whole
  // The nemeses only refer to the nodes and the fleet.
  ClockNemesis clocks_;
  fault::ProcessNemesis processes_;
};

fault::NodeLaunch ChaosRun::launch(int k, int incarnation) const {
  const RunConfig& c = cfg();
  const NodeClock& n = nodes_[static_cast<std::size_t>(k)];
  std::vector<std::string> argv = {paths_.node_binary,
                                   "--layout",
                                   c.layout,
                                   "--policy",
                                   c.policy,
                                   "--node-id",
                                   std::to_string(n.facts.node_id),
                                   "--node-index",
                                   std::to_string(k),
                                   "--incarnation",
                                   std::to_string(incarnation),
                                   "--threads",
                                   std::to_string(c.threads),
                                   "--rate",
                                   fmt::format("{}", c.rate),
                                   "--out-dir",
                                   paths_.dir};
  if (!c.persist_dir.empty()) {
    argv.insert(argv.end(),
                {"--persist", c.persist_dir, "--reserve-ms", std::to_string(c.reserve_ms),
                 "--slow-store-ms", std::to_string(c.slow_store_ms)});
  }
  const std::vector<std::string> what = plan_.generator_args();
  argv.insert(argv.end(), what.begin(), what.end());
  // A built-in variant's IDs without a time cannot show a fault: the node probes its own
  // faked clock instead, which is the variant's clock. A program's clock is its own: only its
  // IDs speak for it (fault_check.hpp).
  if (plan_.variant.id_time == IdTime::none && !c.exec) argv.emplace_back("--probe");
  fault::NodeLaunch l = drive_->launch(n, std::move(argv));
  l.stderr_path = fmt::format("{}/node-{}.inc-{}.stderr", paths_.dir, k, incarnation);
  return l;
}

// The scenario's schedule on the nodes this run has (a scenario's node beyond them is not
// played), each event played by the nemesis of its kind (kEventPlays) at its instant. The
// record of each step is the event's in the log (logged_events).
void ChaosRun::play_events() {
  std::vector<Event> events;
  std::vector<fault::ScheduledStep> steps;
  for (const Event& e : plan_.scenario.events) {
    if (e.node >= cfg().nodes) continue;
    events.push_back(e);
    steps.push_back(scheduled(e));
  }
  fault::Nemeses nemeses;
  nemeses.add(clocks_).add(processes_);
  const fault::PlayOptions options{.watch = [this] { fleet_.check(); },
                                   .stamp = fault::Stamp::on_time};
  for (const fault::Played& p : fault::play_schedule(steps, nemeses, timeline_, options)) {
    played_.emplace(p.record, events[p.step]);
  }
}

// What chaos adds to the process moves: a restart's protocol, a resume's clock step (a VM's
// catch-up) and the facts the analysis needs (when each node was paused or down).
fault::ProcessNemesis::Hooks ChaosRun::process_hooks() {
  fault::ProcessNemesis::Hooks h;
  h.start = [this](int k) { restart(nodes_[static_cast<std::size_t>(k)]); };
  h.before_resume = [this](const fault::FaultStep& step, int k, fault::Instant at) {
    return std::optional<std::int64_t>(
        clocks_.move(step, nodes_[static_cast<std::size_t>(k)], at, timeline_));
  };
  h.played = [this](const fault::FaultStep& step, int k, fault::Instant at) {
    process_played(step, nodes_[static_cast<std::size_t>(k)], at.true_ns);
  };
  return h;
}

void ChaosRun::process_played(const fault::FaultStep& step, NodeClock& n, std::int64_t now) {
  if (step.op == "pause") {
    n.paused_since = now;
  } else if (step.op == "resume") {
    if (n.paused_since >= 0) n.facts.paused.push_back({n.paused_since, now});
    n.paused_since = -1;
  } else if (step.op == "kill") {
    n.facts.incarnations.back().end_true_ns = now;
    n.facts.incarnations.back().killed = true;
    n.down_since = now;
  }
}

// The next incarnation, on the clock the node had: armed first (a durable write it needs is
// part of its down time), then told to go at once.
void ChaosRun::restart(NodeClock& n) {
  spawn(n);
  clocks_.rewrite(n);
  fleet_.process(n.index).send_line("arm");
  await_armed(n);
  const std::int64_t go_true = plumbing::true_ns();
  fleet_.process(n.index).send_line(fmt::format("go {} {}", plumbing::monotonic_ns(), stop_mono_));
  n.facts.incarnations.push_back({cfg().threads, go_true, stop_true_, false});
  if (n.down_since >= 0) n.facts.down.push_back({n.down_since, go_true});
  n.down_since = -1;
}

// The nodes stop by themselves at the stop time; one paused to the end is resumed to let it.
void ChaosRun::collect_nodes() {
  for (auto& n : nodes_) {
    if (n.paused_since >= 0) n.facts.paused.push_back({n.paused_since, plumbing::true_ns()});
    if (n.down_since >= 0) n.facts.down.push_back({n.down_since, stop_true_});
  }
  processes_.teardown(timeline_);
  // A node waits out a program request still open at the stop (its --timeout-ms).
  const std::int64_t allowed =
      kStopTimeoutNs + (cfg().exec ? cfg().exec->timeout_ms * 1'000'000 : 0);
  fleet_.stop({.close_stdin = false, .deadline_mono_ns = stop_mono_ + allowed});
}

// The timeline's history as chaos.json and the analysis read it: each scenario event with its
// step and rate as played.
std::vector<LoggedEvent> ChaosRun::logged_events() const {
  std::vector<LoggedEvent> out;
  const std::vector<fault::FaultRecord>& history = timeline_.history();
  for (std::size_t i = 0; i < history.size(); ++i) {
    const fault::FaultRecord& r = history[i];
    LoggedEvent e{r.true_ns, r.node, r.what, r.kind, {}, {}};
    if (const auto it = played_.find(i); it != played_.end()) {
      const Event& played = it->second;
      if (played.kind == EventKind::step || played.kind == EventKind::resume) {
        e.step_ms = played.step_ms;
      }
      if (played.kind == EventKind::set_rate) e.rate = played.rate;
    }
    out.push_back(std::move(e));
  }
  return out;
}

RunResult ChaosRun::result(std::int64_t began_mono_ns) const {
  RunFacts facts = plan_facts(plan_);
  facts.run_dir = paths_.dir;
  facts.start_true_ns = timeline_.start_true_ns();
  facts.stop_true_ns = stop_true_;
  facts.reference_offset_ns = reference_offset_ns_;
  for (const auto& n : nodes_) facts.nodes.push_back(n.facts);
  facts.events = logged_events();
  RunResult r;
  r.config = cfg();
  r.scenario_summary = std::string(plan_.scenario.summary);
  r.duration_ms = plan_.scenario.duration_ms;
  r.node_ids = plan_.node_ids;
  r.lifetime_last_unix_ms = plan_.lifetime_last_ms;
  r.events = facts.events;
  r.start_true_ns = facts.start_true_ns;
  r.analysis = analyse(facts);
  r.judged_on = judge_setup(plan_, facts.start_true_ns, facts.events);
  r.verdict = judge(r.analysis, r.judged_on);
  r.wall_seconds = static_cast<double>(plumbing::monotonic_ns() - began_mono_ns) / 1e9;
  const Analysis& a = r.analysis;
  timeline_.say(
      fmt::format("{} IDs, {} duplicates, {} refusals, availability {:.1f}%, max stall "
                  "{:.0f} ms, k-sort bound {:.0f} ms: {}",
                  a.ids, a.duplicates, a.refusals, 100 * a.availability, a.max_stall_ms,
                  a.ksort_bound_ms, r.verdict.evidence));
  return r;
}

}  // namespace

RunResult run_chaos(const RunConfig& config, std::FILE* progress) {
  const std::int64_t began = plumbing::monotonic_ns();
  RunPlan plan = plan_run(config);
  if (!config.persist_dir.empty()) {
    prepare_user_dir(config.persist_dir, "--persist");
    check_marks(plan);
  }
  RunPaths paths;
  paths.node_binary = config.node_binary.empty() ? default_node_binary() : config.node_binary;
  RunDir dir(config.keep_dir);
  paths.dir = dir.path();
  InterruptGuard guard;
  // The run (and its nodes) ends before its directory is removed and the guard goes.
  return ChaosRun(std::move(plan), std::move(paths), progress).play(began);
}

}  // namespace idbench::chaos
