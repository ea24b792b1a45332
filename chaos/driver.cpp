#include "chaos/driver.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>

#include "chaos/faketime.hpp"
#include "chaos/high_water_mark.hpp"
#include "chaos/leftovers.hpp"
#include "chaos/process.hpp"
#include "chaos/scenario.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"

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
// While the driver waits for the next event, how often it looks for a node that ended early
// (a program that failed ends its node at once: its error is reported then, not at the end).
constexpr std::int64_t kWatchNs = 20'000'000;
// Writing a timestamp file (write + rename) takes tens of µs; a rate change allows this long
// for it to land (see ClockModel::change_rate): a forward jump of at most |Δrate| × 5 ms. A
// driver descheduled for longer than that is reported in the event log.
constexpr std::int64_t kRateWriteSlackNs = 5'000'000;

// The last ms a Clock can report: wall_ns() is int64 ns since 1970.
constexpr std::int64_t kClockLastMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;

// A policy that promises uniqueness: what an external program's verdict is judged by.
constexpr std::string_view kPromisesUniqueness = "refuse";

std::int64_t true_ms_now() { return Clock::floor_div(plumbing::true_ns(), 1'000'000); }

std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

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

std::string default_node_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "idbench-chaos-node";
    if (fs::exists(beside)) return beside.string();
  }
  throw Error(
      "idbench-chaos-node not found beside this executable; build it (ninja idbench-chaos-node) "
      "or pass its path");
}

struct LiveNode {
  int index = 0;
  std::uint64_t node_id = 0;
  std::string timestamp_file;
  ClockModel clock;
  std::int64_t lib_start_true_ns = 0;
  std::unique_ptr<ChildProcess> proc;
  int incarnation = 0;
  std::int64_t paused_since = -1;
  std::int64_t down_since = -1;
  NodeFacts facts;
};

class Run {
 public:
  Run(const RunConfig& cfg, std::FILE* progress) : cfg_(cfg), progress_(progress) {}

  RunResult execute() {
    const std::int64_t began = plumbing::monotonic_ns();
    validate();
    // What runs killed with -9 left: their run directories, mark directories and shm pairs.
    plumbing::sweep_stale_temp_dirs();
    sweep_stale_faketime_shm();
    if (!cfg_.persist_dir.empty()) {
      prepare_user_dir(cfg_.persist_dir, "--persist");
      check_marks();
    }
    libfaketime_ = find_libfaketime();
    node_binary_ = cfg_.node_binary.empty() ? default_node_binary() : cfg_.node_binary;
    RunDir dir(cfg_.keep_dir);
    dir_ = dir.path();
    InterruptGuard guard;

    say(fmt::format("chaos: {} · {} · {} · {} node{} × {} thread{} · {} · {:.1f} s{}",
                    scenario_.name, cfg_.variant, cfg_.policy, cfg_.nodes,
                    cfg_.nodes == 1 ? "" : "s", cfg_.threads, cfg_.threads == 1 ? "" : "s",
                    cfg_.rate > 0 ? fmt::format("{:.0f} IDs/s per node", cfg_.rate) : "flat out",
                    scenario_.duration_ms / 1000.0,
                    cfg_.persist_dir.empty() ? "" : " · persisted high-water mark"));

    for (int k = 0; k < cfg_.nodes; ++k) {
      LiveNode n;
      n.index = k;
      n.node_id = node_ids_[static_cast<std::size_t>(k)];
      n.timestamp_file = fmt::format("{}/node-{}.faketime", dir_, k);
      n.facts.node_id = n.node_id;
      nodes_.push_back(std::move(n));
    }
    for (auto& n : nodes_) spawn(n);

    // Each node's clock for a provisional start, so that it makes its first reservation on the
    // run's clock; the start is chosen once every node is armed (a slow disk delays it).
    set_start();
    for (auto& n : nodes_) n.proc->send_line("arm");  // all at once: their writes overlap
    for (auto& n : nodes_) await_armed(n);
    set_start();
    for (auto& n : nodes_) {
      n.facts.incarnations.push_back({cfg_.threads, start_true_, stop_true_, false});
    }
    for (auto& n : nodes_) n.proc->send_line(fmt::format("go {} {}", start_mono_, stop_mono_));

    play_events();
    wait_watching(stop_mono_);
    collect_nodes();

    RunFacts facts = run_facts();
    RunResult result;
    result.config = cfg_;
    result.scenario_summary = std::string(scenario_.summary);
    result.duration_ms = scenario_.duration_ms;
    result.node_ids = node_ids_;
    result.lifetime_last_unix_ms = lifetime_last_ms_;
    result.events = events_;
    result.start_true_ns = start_true_;
    result.analysis = analyse(facts);
    result.judged_on = judge_setup();
    result.verdict = judge(result.analysis, result.judged_on);
    result.wall_seconds = static_cast<double>(plumbing::monotonic_ns() - began) / 1e9;
    say(
        fmt::format("  {} IDs, {} duplicates, {} refusals, availability {:.1f}%, max stall "
                    "{:.0f} ms, k-sort bound {:.0f} ms: {}",
                    result.analysis.ids, result.analysis.duplicates, result.analysis.refusals,
                    100 * result.analysis.availability, result.analysis.max_stall_ms,
                    result.analysis.ksort_bound_ms, result.verdict.evidence));
    return result;
  }

 private:
  void say(const std::string& line) {
    if (progress_ == nullptr) return;
    fmt::print(progress_, "{}\n", line);
    std::fflush(progress_);
  }

  // The run's instant 0, on both clocks, and every node's clock from it.
  void set_start() {
    const std::int64_t mono_now = plumbing::monotonic_ns();
    const std::int64_t true_now = plumbing::true_ns();
    const std::int64_t margin = kStartMarginNs + (cfg_.exec ? kExecWarmUpNs : 0);
    start_mono_ = mono_now + margin;
    start_true_ = true_now + margin;
    stop_mono_ = start_mono_ + scenario_.duration_ms * 1'000'000;
    stop_true_ = start_true_ + scenario_.duration_ms * 1'000'000;
    reference_offset_ns_ = reference_offset();
    for (auto& n : nodes_) {
      n.facts.clock_offset_ns = reference_offset_ns_ + skew_ns(n.index);
      n.clock = ClockModel(start_true_, start_true_ + n.facts.clock_offset_ns);
      write_setting(n.timestamp_file, n.clock.setting_for(n.lib_start_true_ns));
    }
  }

  // "arm": the node makes its first durable reservation on its run clock (node.hpp).
  void arm(LiveNode& n) {
    n.proc->send_line("arm");
    await_armed(n);
  }

  void await_armed(LiveNode& n) {
    const auto line = n.proc->read_line(plumbing::monotonic_ns() + kReadyTimeoutNs);
    if (line.value_or("") == "armed") return;
    node_failed(n, "could not arm");
  }

  // A node that ended or did not answer: its program's fault when that is what ended it (one
  // line, exit 2, as `generate` reports it), else the node's status and its last words.
  [[noreturn]] void node_failed(LiveNode& n, std::string_view what) {
    const auto status = n.proc->wait_until(plumbing::monotonic_ns() + 1'000'000'000);
    std::string program = read_text_file(fmt::format(
        "{}/{}", dir_, program_error_file_name(n.index, n.incarnation)));
    while (!program.empty() && program.back() == '\n') program.pop_back();
    if (!program.empty()) throw external::ProgramError(program);
    throw Error(fmt::format("node {} (incarnation {}) {} ({}): {}", n.index, n.incarnation, what,
                            status ? fmt::format("exit status {}", *status) : "no answer",
                            last_lines(read_text_file(stderr_path(n)))));
  }

  // Sleeps until `deadline`, failing at once when a node ended before its time.
  void wait_watching(std::int64_t deadline) {
    for (std::int64_t now = plumbing::monotonic_ns(); now < deadline;
         now = plumbing::monotonic_ns()) {
      throw_if_interrupted();
      for (auto& n : nodes_) {
        if (n.proc && n.proc->running() && n.proc->try_wait()) node_failed(n, "ended early");
      }
      plumbing::sleep_until_mono(std::min(deadline, now + kWatchNs));
    }
    throw_if_interrupted();
  }

  // A stored mark must be readable and whole before any node starts from it: one clear line
  // naming the file, not a node that fails (or, worse, never issues) later.
  void check_marks() const {
    for (const std::uint64_t id : node_ids_) HighWaterMark(mark_path(cfg_.persist_dir, id)).load();
  }

  JudgeSetup judge_setup() const {
    const Variant* v = &variant_;
    // An external program promises unique IDs, across its restarts too: how it keeps that
    // promise (a policy, a persisted state) is its own business, and a duplicate breaks it.
    JudgeSetup s{.policy = cfg_.exec ? std::string(kPromisesUniqueness) : cfg_.policy,
                 .persist = cfg_.exec || !cfg_.persist_dir.empty(),
                 .program = cfg_.exec.has_value(),
                 .nodes = cfg_.nodes,
                 .threads = cfg_.threads,
                 .steps_back = scenario_.steps_back,
                 .restarts = scenario_.restarts,
                 .same_node_id = scenario_.same_node_id,
                 .exhausts = scenario_.exhausts,
                 .node_field = v->uses_layout,
                 .random_bits = v->width == IdWidth::bits128,
                 .lifetime_last_unix_ms = lifetime_last_ms_,
                 .start_true_ns = start_true_,
                 .faults = {}};
    for (const LoggedEvent& e : events_) {
      if (e.kind != "note") s.faults.push_back({e.true_ns, e.what});
    }
    return s;
  }

  void validate() {
    const Scenario* s = find_scenario(cfg_.scenario);
    if (s == nullptr) {
      std::vector<std::string> names;
      for (const auto& sc : scenarios()) names.emplace_back(sc.name);
      throw Error(fmt::format("unknown scenario '{}'; one of: {}", cfg_.scenario, one_of(names)));
    }
    check_rate_and_scale(cfg_.rate, cfg_.time_scale);
    scenario_ = scaled(*s, cfg_.time_scale);
    const Variant* v = &resolve_variant();
    if (!cfg_.exec) Policy::parse(cfg_.policy);  // throws with the list of policies
    const Layout layout = Layout::parse(cfg_.layout, true_ms_now());
    if (cfg_.nodes < 1 || cfg_.nodes > 64) throw Error("--nodes must be 1 … 64");
    if (cfg_.threads < 1 || cfg_.threads > 64) throw Error("--threads must be 1 … 64");
    if (scenario_.same_node_id && cfg_.nodes < 2) {
      throw Error(fmt::format("scenario {} needs at least 2 nodes", scenario_.name));
    }
    for (int k = 0; k < cfg_.nodes; ++k) {
      // Node k issues as k·T (thread-local: k·T … k·T+T−1). With a collision, node 1 repeats
      // node 0's id and the rest move down one place.
      const int place = scenario_.same_node_id && k >= 1 ? k - 1 : k;
      node_ids_.push_back(static_cast<std::uint64_t>(place) * cfg_.threads);
    }
    if (v->uses_layout) {
      const std::uint64_t last = node_ids_.back() + cfg_.threads - 1;
      if (last > layout.max_node()) {
        throw Error(
            fmt::format("{} nodes × {} threads need node ids up to {}, beyond {}'s last node id {}",
                        cfg_.nodes, cfg_.threads, last, layout.name(), layout.max_node()));
      }
    }
    if (scenario_.base == ClockBase::lifetime_end_at) {
      if (cfg_.exec) {
        throw NotApplicable("an external program's lifetime cannot be probed through the clock "
                            "seam: epoch-exhaustion runs the built-in variants");
      }
      lifetime_last_ms_ = probe_lifetime_last_ms(cfg_.variant, cfg_.layout, cfg_.policy);
      if (!lifetime_last_ms_) {
        if (!v->time_based) {
          throw NotApplicable(fmt::format("variant {} has no timestamp to exhaust", cfg_.variant));
        }
        throw NotApplicable(fmt::format(
            "variant {} does not run out before {}, the last instant idbench's Clock can "
            "express (int64 ns since 1970): its end cannot be reached through the clock seam",
            cfg_.variant, format_utc_ms(kClockLastMs)));
      }
    }
  }

  // The description the run reads: the variant's, or the external program's.
  const Variant& resolve_variant() {
    if (cfg_.exec) {
      if (!cfg_.persist_dir.empty()) {
        throw Error("--persist keeps a high-water mark inside idbench's clock; it does not "
                    "apply to --exec");
      }
      variant_ = external::exec_variant(*cfg_.exec);
      return variant_;
    }
    const Variant* v = find_variant(cfg_.variant);
    if (v == nullptr) {
      std::vector<std::string> names;
      for (const auto& var : variants()) names.emplace_back(var.name);
      throw Error(fmt::format("unknown variant '{}'; one of: {}", cfg_.variant, one_of(names)));
    }
    variant_ = *v;
    return variant_;
  }

  // The node's flags that say what it runs: the variant, or the program and its description.
  std::vector<std::string> generator_args() const {
    if (!cfg_.exec) return {"--variant", cfg_.variant};
    const external::ExecSpec& e = *cfg_.exec;
    // The width the description implies (exec_variant), so that a program printing the other
    // one is refused at its first ID, as `generate` refuses it.
    return {"--exec",       e.command,
            "--id-time",    std::string(name_of(e.id_time)),
            "--id-bits",    variant_.width == IdWidth::bits128 ? "128" : "64",
            "--ordering",   std::string(name_of(e.ordering)),
            "--batch",      std::to_string(e.batch),
            "--timeout-ms", std::to_string(e.timeout_ms)};
  }

  std::int64_t skew_ns(int k) const {
    if (scenario_.skew_ms == 0 || cfg_.nodes < 2) return 0;
    const double share = static_cast<double>(k) / (cfg_.nodes - 1);
    return static_cast<std::int64_t>((-1.0 + 2.0 * share) * scenario_.skew_ms * 1e6);
  }

  std::int64_t reference_offset() const {
    const std::int64_t at_true = start_true_ + scenario_.base_at_ms * 1'000'000;
    switch (scenario_.base) {
      case ClockBase::true_time:
        return 0;
      case ClockBase::absolute_at:
        return scenario_.base_unix_ms * 1'000'000 - at_true;
      case ClockBase::lifetime_end_at:
        return (*lifetime_last_ms_ + 1) * 1'000'000 - at_true;
    }
    return 0;
  }

  void spawn(LiveNode& n) {
    write_setting(n.timestamp_file, kCalibrationSetting);
    std::vector<std::string> argv = {node_binary_,
                                     "--layout",
                                     cfg_.layout,
                                     "--policy",
                                     cfg_.policy,
                                     "--node-id",
                                     std::to_string(n.node_id),
                                     "--node-index",
                                     std::to_string(n.index),
                                     "--incarnation",
                                     std::to_string(n.incarnation),
                                     "--threads",
                                     std::to_string(cfg_.threads),
                                     "--rate",
                                     fmt::format("{}", cfg_.rate),
                                     "--out-dir",
                                     dir_};
    if (!cfg_.persist_dir.empty()) {
      argv.insert(argv.end(),
                  {"--persist", cfg_.persist_dir, "--reserve-ms", std::to_string(cfg_.reserve_ms),
                   "--slow-store-ms", std::to_string(cfg_.slow_store_ms)});
    }
    const std::vector<std::string> what = generator_args();
    argv.insert(argv.end(), what.begin(), what.end());
    // A built-in variant's IDs without a time cannot show a fault: the node probes its own
    // faked clock instead, which is the variant's clock. A program's clock is its own: only its
    // IDs speak for it (fault_check.hpp).
    if (variant_.id_time == IdTime::none && !cfg_.exec) argv.emplace_back("--probe");
    const std::string err = stderr_path(n);
    n.proc =
        std::make_unique<ChildProcess>(argv, node_environment(n.timestamp_file, libfaketime_), err);
    const auto line = n.proc->read_line(plumbing::monotonic_ns() + kReadyTimeoutNs);
    std::istringstream in(line.value_or(""));
    std::string word;
    std::int64_t t = 0;
    std::int64_t f = 0;
    if (!(in >> word >> t >> f) || word != "ready") node_failed(n, "did not start");
    n.lib_start_true_ns = lib_start_from_calibration(t, f);
    // Until the run's settings are written, the node (and an external program it started,
    // which may read the clock before its first request) reads the true time, or, restarted,
    // its machine's clock: never the calibration's ×2.
    const std::int64_t now = plumbing::true_ns();
    write_setting(n.timestamp_file, (n.incarnation == 0 ? ClockModel(now, now) : n.clock)
                                        .setting_for(n.lib_start_true_ns));
  }

  std::string stderr_path(const LiveNode& n) const {
    return fmt::format("{}/node-{}.inc-{}.stderr", dir_, n.index, n.incarnation);
  }

  static std::string last_lines(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    if (t.empty()) return "(no message)";
    const std::size_t cut = t.size() > 600 ? t.size() - 600 : 0;
    return t.substr(cut);
  }

  void log(std::int64_t at_true, const Event& e) {
    LoggedEvent logged{at_true, e.node, std::string(e.why), std::string(kind_name(e.kind)), {}, {}};
    if (e.kind == EventKind::step || e.kind == EventKind::resume) logged.step_ms = e.step_ms;
    if (e.kind == EventKind::set_rate) logged.rate = e.rate;
    events_.push_back(std::move(logged));
    say(fmt::format("  +{:5.2f} s  {}", static_cast<double>(at_true - start_true_) / 1e9, e.why));
  }

  // A line in the event log that is not a scenario event: something the harness could not do
  // as planned.
  void log_note(int node, const std::string& what) {
    events_.push_back({plumbing::true_ns(), node, what, "note", {}, {}});
    say("  note: " + what);
  }

  static std::string_view kind_name(EventKind kind) {
    switch (kind) {
      case EventKind::step:
        return "step";
      case EventKind::set_rate:
        return "set_rate";
      case EventKind::stop:
        return "stop";
      case EventKind::resume:
        return "resume";
      case EventKind::kill:
        return "kill";
      case EventKind::restart:
        return "restart";
    }
    return "step";
  }

  void play_events() {
    std::vector<Event> timeline = scenario_.events;
    std::stable_sort(timeline.begin(), timeline.end(),
                     [](const Event& a, const Event& b) { return a.at_ms < b.at_ms; });
    for (const Event& e : timeline) {
      wait_watching(start_mono_ + e.at_ms * 1'000'000);
      const std::int64_t now = plumbing::true_ns();
      for (auto& n : nodes_) {
        if (e.node != kAllNodes && e.node != n.index) continue;
        if (e.node >= cfg_.nodes) continue;
        apply(e, n, now);
      }
      if (e.node < cfg_.nodes) log(now, e);
    }
  }

  void rewrite(LiveNode& n) {
    if (n.proc && n.proc->running()) {
      write_setting(n.timestamp_file, n.clock.setting_for(n.lib_start_true_ns));
    }
  }

  void apply(const Event& e, LiveNode& n, std::int64_t now) {
    const std::int64_t write_from = plumbing::true_ns();
    apply_event(e, n, now);
    if (e.kind == EventKind::step || e.kind == EventKind::set_rate ||
        e.kind == EventKind::resume) {
      n.facts.clock_writes.push_back({std::min(now, write_from), plumbing::true_ns()});
    }
  }

  void apply_event(const Event& e, LiveNode& n, std::int64_t now) {
    switch (e.kind) {
      case EventKind::step:
        n.clock.step(now, e.step_ms * 1'000'000);
        rewrite(n);
        break;
      case EventKind::set_rate: {
        // Anchored at this node's own write, not at the event: nodes are written one after
        // the other, and the gap would be a small step back for the later ones.
        const double old_rate = n.clock.rate();
        const std::int64_t before = plumbing::true_ns();
        n.clock.change_rate(before, e.rate, kRateWriteSlackNs);
        rewrite(n);
        const std::int64_t late = plumbing::true_ns() - before - kRateWriteSlackNs;
        if (late > 0) {
          log_note(n.index,
                   fmt::format("the rate change landed {:.1f} ms late: node {}'s clock "
                               "may have stepped back by up to {:.2f} ms",
                               late / 1e6, n.index, std::abs(e.rate - old_rate) * late / 1e6));
        }
        break;
      }
      case EventKind::stop:
        n.proc->signal(SIGSTOP);
        n.paused_since = now;
        break;
      case EventKind::resume:
        n.clock.step(now, e.step_ms * 1'000'000);
        rewrite(n);
        n.proc->signal(SIGCONT);
        if (n.paused_since >= 0) n.facts.paused.push_back({n.paused_since, now});
        n.paused_since = -1;
        break;
      case EventKind::kill:
        n.proc->kill_and_reap();
        n.facts.incarnations.back().end_true_ns = now;
        n.facts.incarnations.back().killed = true;
        n.down_since = now;
        break;
      case EventKind::restart: {
        ++n.incarnation;
        spawn(n);
        rewrite(n);
        arm(n);  // a durable write it needs first is part of its down time
        const std::int64_t go_true = plumbing::true_ns();
        n.proc->send_line(fmt::format("go {} {}", plumbing::monotonic_ns(), stop_mono_));
        n.facts.incarnations.push_back({cfg_.threads, go_true, stop_true_, false});
        if (n.down_since >= 0) n.facts.down.push_back({n.down_since, go_true});
        n.down_since = -1;
        break;
      }
    }
  }

  void collect_nodes() {
    for (auto& n : nodes_) {
      if (n.paused_since >= 0) {  // a scenario that never resumed: resume to let it stop
        n.proc->signal(SIGCONT);
        n.facts.paused.push_back({n.paused_since, plumbing::true_ns()});
      }
      if (n.down_since >= 0) n.facts.down.push_back({n.down_since, stop_true_});
      if (!n.proc || !n.proc->running()) continue;
      // A node waits out a program request still open at the stop (its --timeout-ms).
      const std::int64_t allowed =
          kStopTimeoutNs + (cfg_.exec ? cfg_.exec->timeout_ms * 1'000'000 : 0);
      const auto status = n.proc->wait_until(stop_mono_ + allowed);
      if (!status) {
        n.proc->kill_and_reap();
        throw Error(fmt::format("node {} did not stop within {:.1f} s of the end of the run",
                                n.index, static_cast<double>(allowed) / 1e9));
      }
      if (*status != 0) node_failed(n, "failed");
    }
  }

  RunFacts run_facts() const {
    RunFacts f;
    f.run_dir = dir_;
    f.start_true_ns = start_true_;
    f.stop_true_ns = stop_true_;
    f.reference_offset_ns = reference_offset_ns_;
    for (const auto& n : nodes_) f.nodes.push_back(n.facts);
    f.events = events_;
    const Variant* v = &variant_;
    f.width = v->width;
    f.program = cfg_.exec.has_value();
    f.ids_per_request = cfg_.exec ? cfg_.exec->batch : 1;
    f.id_time = v->id_time;
    if (v->id_time == IdTime::layout) f.layout = Layout::parse(cfg_.layout, true_ms_now());
    f.id_time_resolution_ms = v->id_time == IdTime::ksuid ? 1000
                              : f.layout                  ? f.layout->unit_ms()
                                                          : 1;
    return f;
  }

  const RunConfig cfg_;
  std::FILE* progress_;
  Scenario scenario_;
  Variant variant_;  // what the nodes run (resolve_variant)
  std::vector<std::uint64_t> node_ids_;
  std::optional<std::int64_t> lifetime_last_ms_;
  std::string dir_;
  std::string libfaketime_;
  std::string node_binary_;
  std::vector<LiveNode> nodes_;
  std::vector<LoggedEvent> events_;
  std::int64_t start_mono_ = 0;
  std::int64_t start_true_ = 0;
  std::int64_t stop_mono_ = 0;
  std::int64_t stop_true_ = 0;
  std::int64_t reference_offset_ns_ = 0;
};

}  // namespace

// Both written so that NaN fails every comparison and lands in the problem.
std::string rate_problem(double rate) {
  if (rate == 0 || (rate >= kMinRate && rate <= kMaxRate)) return "";
  return fmt::format("must be 0 (flat out) or {:g} … {:g} IDs/s per node, not {}", kMinRate,
                     kMaxRate, rate);
}

std::string time_scale_problem(double time_scale) {
  if (time_scale >= kMinTimeScale && time_scale <= kMaxTimeScale) return "";
  return fmt::format("must be {:g} … {:g}, not {}", kMinTimeScale, kMaxTimeScale, time_scale);
}

void check_rate_and_scale(double rate, double time_scale) {
  if (const std::string p = rate_problem(rate); !p.empty()) throw Error("--rate " + p);
  if (const std::string p = time_scale_problem(time_scale); !p.empty()) {
    throw Error("--time-scale " + p);
  }
}

RunResult run_chaos(const RunConfig& config, std::FILE* progress) {
  return Run(config, progress).execute();
}

std::optional<std::int64_t> probe_lifetime_last_ms(const std::string& variant,
                                                   const std::string& layout,
                                                   const std::string& policy) {
  const std::int64_t now_ms = true_ms_now();
  const auto exhausted_at = [&](std::int64_t unix_ms) {
    GeneratorOptions opts;
    opts.layout = Layout::parse(layout, now_ms);
    opts.policy = Policy::parse(policy);
    opts.clock = std::make_shared<ManualClock>(unix_ms * 1'000'000);
    auto gen = make_generator(variant, opts);
    try {
      gen->next();
      return false;
    } catch (const EpochExhausted&) {
      return true;
    } catch (const ClockError&) {
      return false;
    }
  };
  std::int64_t lo = now_ms;
  std::int64_t hi = kClockLastMs;
  if (exhausted_at(lo) || !exhausted_at(hi)) return std::nullopt;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (exhausted_at(mid) ? hi : lo) = mid;
  }
  return lo;
}

}  // namespace idbench::chaos
