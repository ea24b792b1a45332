// scenario.cpp — the chaos scenario table (scenario.hpp): each scenario's nodes, schedule and
// judged-on flags, declared; scaling; an event as the fault step its kind's nemesis plays.
#include "chaos/scenario.hpp"

#include <fmt/format.h>

#include <cmath>

#include "chaos/clock_nemesis.hpp"

namespace idbench::chaos {
namespace {

// 2017-01-01T00:00:00Z: the last leap second (23:59:60) was inserted just before it.
constexpr std::int64_t kLeapMidnightUnixMs = 1'483'228'800'000;

// The verbs kEventPlays names are the ones its nemeses play.
static_assert(fault::playable(kEventPlays, std::array{ClockNemesis::kRepertoire,
                                                      fault::ProcessNemesis::kRepertoire}));

// A schedule's events, each read as what happens to which node when (ms into the run).
constexpr Event clock_step(std::int64_t at_ms, int node, std::int64_t by_ms, std::string_view why) {
  return {at_ms, EventKind::step, node, by_ms, 1.0, why};
}
constexpr Event clock_rate(std::int64_t at_ms, int node, double rate, std::string_view why) {
  return {at_ms, EventKind::set_rate, node, 0, rate, why};
}
constexpr Event sigstop(std::int64_t at_ms, int node, std::string_view why) {
  return {at_ms, EventKind::stop, node, 0, 1.0, why};
}
// SIGCONT after the node's clock jumps by `clock_by_ms` (a VM's catch-up).
constexpr Event sigcont(std::int64_t at_ms, int node, std::int64_t clock_by_ms,
                        std::string_view why) {
  return {at_ms, EventKind::resume, node, clock_by_ms, 1.0, why};
}
constexpr Event sigkill(std::int64_t at_ms, int node, std::string_view why) {
  return {at_ms, EventKind::kill, node, 0, 1.0, why};
}
constexpr Event restart_node(std::int64_t at_ms, int node, std::string_view why) {
  return {at_ms, EventKind::restart, node, 0, 1.0, why};
}

// NTP: the daemon steps a clock that is far off and slews one that is close.
void add_ntp_scenarios(std::vector<Scenario>& all) {
  // Cumulative steps: the clock ends 6.2 s behind. Each step comes after the generator has
  // recovered from the one before (for `refuse` and `wait`), so each shows its own refusal
  // window; the run lasts until the 5 s step is over too.
  all.push_back({.name = "ntp-step-back",
                 .summary = "every clock steps back 200 ms at 0.4 s, 1 s at 1.0 s and 5 s at "
                            "2.2 s (ntpd steps offsets above 128 ms)",
                 .duration_ms = 7500,
                 .events = {clock_step(400, kAllNodes, -200, "NTP steps every clock back 200 ms"),
                            clock_step(1000, kAllNodes, -1000, "NTP steps every clock back 1 s"),
                            clock_step(2200, kAllNodes, -5000, "NTP steps every clock back 5 s")},
                 .steps_back = true});

  // ntpd slews at most 500 ppm; compressed 100× so a 2 s run shows a 70 ms drift, no step.
  all.push_back({.name = "ntp-slew",
                 .summary = "node 0's clock runs at ×0.95 from 0.3 s to 1.7 s (a 500 ppm slew "
                            "compressed 100×): it falls 70 ms behind without a step",
                 .duration_ms = 2000,
                 .events = {clock_rate(300, 0, 0.95, "NTP slews node 0 (×0.95)"),
                            clock_rate(1700, 0, 1.0, "slew over (×1)")}});
}

// The leap second, as Linux inserts it (a step back) and as a smearing NTP server hides it.
void add_leap_second_scenarios(std::vector<Scenario>& all) {
  // Linux repeats 23:59:59: CLOCK_REALTIME steps back 1 s at midnight UTC.
  all.push_back({.name = "leap-second",
                 .summary = "clocks start at 2016-12-31 23:59:58 UTC and repeat 23:59:59: every "
                            "clock steps back 1 s at midnight (2.0 s in)",
                 .duration_ms = 3100,
                 .base = ClockBase::absolute_at,
                 .base_unix_ms = kLeapMidnightUnixMs,
                 .base_at_ms = 2000,
                 .events = {clock_step(2000, kAllNodes, -1000,
                                       "midnight UTC: the kernel repeats 23:59:59 (−1 s)")},
                 .steps_back = true});

  // Google's smear runs clocks slow by 1 s over 24 h; compressed to 2 s (×0.5) here.
  all.push_back({.name = "leap-smear",
                 .summary = "the same leap second smeared: every clock runs at ×0.5 from 0.25 s "
                            "to 2.25 s, absorbing 1 s without a step",
                 .duration_ms = 2500,
                 .base = ClockBase::absolute_at,
                 .base_unix_ms = kLeapMidnightUnixMs - 1250,
                 .base_at_ms = 0,
                 .events = {clock_rate(250, kAllNodes, 0.5, "smear starts (×0.5)"),
                            clock_rate(2250, kAllNodes, 1.0, "smear over: 1 s absorbed")}});
}

// The process itself stops: a paused VM, a node killed and restarted mid-regression.
void add_process_scenarios(std::vector<Scenario>& all) {
  // A paused guest sees the wall clock jump by the pause when it resumes; a guest that
  // overshot while catching up is stepped back by NTP later.
  all.push_back({.name = "vm-pause",
                 .summary = "node 0 is paused (SIGSTOP) for 1 s at 0.5 s; it resumes with its "
                            "clock 300 ms ahead, which NTP steps back at 2.2 s",
                 .duration_ms = 2600,
                 .events = {sigstop(500, 0, "VM pause: node 0 frozen"),
                            sigcont(1500, 0, 300,
                                    "VM resumes: node 0's clock jumps 1 s, overshooting by 300 ms"),
                            clock_step(2200, 0, -300, "NTP steps node 0 back 300 ms")},
                 .steps_back = true});

  all.push_back({.name = "restart-during-regression",
                 .summary = "node 0 is killed (-9) at 1.0 s, its clock stepped back 1 s, and it "
                            "is restarted at 1.1 s with the same node id",
                 .duration_ms = 3200,
                 .events = {sigkill(1000, 0, "kill -9 node 0"),
                            clock_step(1000, 0, -1000, "node 0's clock steps back 1 s"),
                            restart_node(1100, 0, "node 0 restarts, same node id")},
                 .steps_back = true,
                 .restarts = true});
}

// Faults of the set-up, present from the start: the clock's range, the node ids, the offsets.
// No schedule: the nodes are the fault.
void add_setup_scenarios(std::vector<Scenario>& all) {
  all.push_back({.name = "epoch-exhaustion",
                 .summary = "clocks cross the variant's last representable time 1 s in: every "
                            "policy must refuse, naming the last date, and never wrap",
                 .duration_ms = 1600,
                 .base = ClockBase::lifetime_end_at,
                 .base_at_ms = 1000,
                 .events = {},
                 .exhausts = true});

  all.push_back({.name = "worker-collision",
                 .summary = "nodes 0 and 1 are configured with the same node id",
                 .duration_ms = 1200,
                 .same_node_id = true,
                 .events = {}});

  all.push_back({.name = "skew",
                 .summary = "fixed clock offsets spread over −50 … +50 ms across the nodes: "
                            "measures the k-sort bound",
                 .duration_ms = 1500,
                 .skew_ms = 50,
                 .events = {}});
}

// The whole table, in the order `idbench chaos --list` shows it.
std::vector<Scenario> build() {
  std::vector<Scenario> all;
  add_ntp_scenarios(all);
  add_leap_second_scenarios(all);
  add_process_scenarios(all);
  add_setup_scenarios(all);
  return all;
}

}  // namespace

std::string_view name_of(EventKind kind) { return plumbing::name_in(kEventKindNames, kind); }

std::span<const Scenario> scenarios() {
  static const std::vector<Scenario> all = build();
  return all;
}

const Scenario* find_scenario(std::string_view name) {
  for (const auto& s : scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Scenario scaled(const Scenario& s, double factor) {
  const auto scale = [factor](std::int64_t v) {
    return static_cast<std::int64_t>(std::llround(static_cast<double>(v) * factor));
  };
  Scenario out = s;
  out.duration_ms = scale(s.duration_ms);
  out.base_at_ms = scale(s.base_at_ms);
  out.skew_ms = scale(s.skew_ms);
  if (s.base == ClockBase::absolute_at) {
    // Keep the moment the base names (midnight) at the same place in the scaled timeline.
    out.base_unix_ms = s.base_unix_ms;
  }
  for (auto& e : out.events) {
    e.at_ms = scale(e.at_ms);
    e.step_ms = scale(e.step_ms);
  }
  return out;
}

fault::ScheduledStep scheduled(const Event& e) {
  return fault::schedule_step(kEventPlays, e.kind, e.at_ms * 1'000'000,
                              {.node = e.node,
                               .step_ns = e.step_ms * 1'000'000,
                               .rate = e.rate,
                               .kind = std::string(name_of(e.kind)),
                               .what = std::string(e.why)});
}

std::string describe_scenarios() {
  std::string out;
  for (const auto& s : scenarios()) {
    out += fmt::format("  {:<26} {:>5.1f} s  {}\n", s.name, s.duration_ms / 1000.0, s.summary);
  }
  return out;
}

}  // namespace idbench::chaos
