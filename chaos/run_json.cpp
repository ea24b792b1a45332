// run_json.cpp — a chaos run as JSON (see run_json.hpp).
#include "chaos/run_json.hpp"

#include <cmath>
#include <cstdio>

#include "chaos/faketime.hpp"
#include "fault/verdict_json.hpp"
#include "generators/layout.hpp"
#include "plumbing/run_context.hpp"

namespace idbench::chaos {
namespace {

using json = nlohmann::ordered_json;

// Figures are ms with µs precision at most: more digits are noise and bloat chaos.json.
double round3(double v) { return std::round(v * 1000) / 1000; }
double round1(double v) { return std::round(v * 10) / 10; }

std::string libfaketime_version() {
  std::FILE* p = ::popen("dpkg-query -W -f='${Version}' libfaketime 2>/dev/null", "r");
  if (p == nullptr) return "unknown";
  char buf[128] = {0};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  ::pclose(p);
  return n == 0 ? "unknown" : std::string(buf, n);
}

json timeline_json(const RunResult& r) {
  const Timeline& t = r.analysis.timeline;
  json out;
  out["x"] = "true time since the run started, ms";
  out["y"] = "time embedded in the IDs minus the reference time at the run's start, ms";
  out["reference_start_utc"] = format_utc_ms(t.reference_start_unix_ms);
  json nodes = json::array();
  for (std::size_t k = 0; k < t.nodes.size(); ++k) {
    json points = json::array();
    for (const auto& p : t.nodes[k]) {
      points.push_back({round1(p.x_ms), p.y_min_ms, p.y_max_ms, p.ids});
    }
    json refused = json::array();
    for (const auto& [from, to] : t.refused[k]) refused.push_back({round1(from), round1(to)});
    json down = json::array();
    for (const auto& [from, to] : t.down[k]) down.push_back({round1(from), round1(to)});
    nodes.push_back({{"node", k},
                     {"points", std::move(points)},
                     {"points_columns", {"x_ms", "y_min_ms", "y_max_ms", "ids"}},
                     {"refused", std::move(refused)},
                     {"down", std::move(down)}});
  }
  out["nodes"] = std::move(nodes);
  json dups = json::array();
  for (const auto& m : t.duplicates) dups.push_back({round1(m.x_ms), m.y_ms, m.node});
  out["duplicates"] = std::move(dups);
  out["duplicates_columns"] = {"x_ms", "y_ms", "node"};
  json events = json::array();
  for (const auto& e : r.events) {
    json event = {{"x_ms", round1(static_cast<double>(e.true_ns - r.start_true_ns) / 1e6)},
                  {"node", e.node},
                  {"kind", e.kind},
                  {"what", e.what}};
    if (e.step_ms) event["step_ms"] = *e.step_ms;
    if (e.rate) event["rate"] = *e.rate;
    events.push_back(std::move(event));
  }
  out["events"] = std::move(events);
  return out;
}

json fault_check_json(const RunResult& r) {
  const FaultCheck& c = r.analysis.fault_check;
  json faults = json::array();
  for (const auto& f : c.faults) {
    faults.push_back({{"node", f.node},
                      {"at_ms", round1(static_cast<double>(f.at_true_ns - r.start_true_ns) / 1e6)},
                      {"what", f.what},
                      {"kind", f.kind},
                      {"expected_ms", round1(f.expected_ms)},
                      {"observed_ms", f.observed_ms ? json(round1(*f.observed_ms)) : json(nullptr)},
                      {"outcome", name_of(f.outcome)},
                      {"how", f.how}});
  }
  const bool applied = fault_gaps(c, r.start_true_ns).empty();
  return {{"method", c.method}, {"applied", applied}, {"faults", faults}};
}

// Each example of an ID issued twice, with every place it was issued.
json duplicate_examples_json(const Analysis& a) {
  json examples = json::array();
  for (const auto& ex : a.duplicate_examples) {
    json places = json::array();
    for (const auto& p : ex.places) {
      places.push_back({{"node", p.node},
                        {"incarnation", p.incarnation},
                        {"thread", p.thread},
                        {"at_ms", round3(p.at_ms)}});
    }
    examples.push_back({{"id", ex.id}, {"places", std::move(places)}});
  }
  return examples;
}

}  // namespace

json context_json() {
  // The shared block (plumbing/run_context.hpp), identical in every idbench result.
  return json::parse(plumbing::to_json(plumbing::current_run_context()).dump());
}

json clocks_json(ClockInjector injector) {
  json c;
  c["clock_injector"] = name_of(injector);
  if (injector == ClockInjector::ptrace) {
    c["chaos_clocks"] =
        "every process of a node's tree runs under idbench-inject (ptrace): its vDSO "
        "clock_gettime, gettimeofday and time jump to a trampoline that reads the node's shared "
        "clock page, and its raw clock system calls are trapped (seccomp) and rewritten from the "
        "same page; MONOTONIC is not moved; true issue times from the harness's own marked "
        "syscall(SYS_clock_gettime, CLOCK_REALTIME), which the filter lets pass; durations from "
        "raw CLOCK_MONOTONIC";
    return c;
  }
  try {
    c["libfaketime"] = find_libfaketime();
  } catch (const std::exception&) {
    c["libfaketime"] = "missing";
  }
  c["libfaketime_version"] = libfaketime_version();
  c["chaos_clocks"] =
      "generators read CLOCK_REALTIME via clock_gettime, faked per node by libfaketimeMT "
      "(FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1, DONT_FAKE_MONOTONIC=1); true issue times "
      "from syscall(SYS_clock_gettime, CLOCK_REALTIME), which it does not intercept; "
      "durations from raw CLOCK_MONOTONIC";
  return c;
}

json to_json(const RunResult& r, bool with_timeline) {
  const Analysis& a = r.analysis;
  json j;
  j["scenario"] = r.config.scenario;
  j["variant"] = r.config.variant;
  j["policy"] = r.config.policy;
  j["persist"] = !r.config.persist_dir.empty();
  j["nodes"] = r.config.nodes;
  j["ids"] = a.ids;
  j["duplicates"] = a.duplicates;
  j["order_violations"] = a.order_violations;
  j["refusals"] = a.refusals;
  j["availability"] = std::round(a.availability * 1e5) / 1e5;
  j["max_stall_ms"] = round3(a.max_stall_ms);
  j["ksort_bound_ms"] = round3(a.ksort_bound_ms);
  j["promise_kept"] = r.verdict.passed();
  j["evidence"] = evidence_gaps(a, r.judged_on).empty();
  j["fault_check"] = fault_check_json(r);
  j["verdict"] = r.verdict.evidence;
  j["promise"] = promise_of(r.judged_on).text();
  j["duplicates_expected"] = !duplicates_possible_because(r.judged_on).empty();
  j["caught"] = a.duplicates > 0;
  j["findings"] = r.verdict.findings;
  j["fault_verdict"] = fault::to_json(r.verdict);
  j["duplicates_by_origin"] = {{"within_process", a.duplicates_within_process},
                               {"across_restart", a.duplicates_across_restart},
                               {"across_instances", a.duplicates_across_instances},
                               {"across_nodes", a.duplicates_across_nodes}};
  j["duplicate_examples"] = duplicate_examples_json(a);
  j["refusals_by_kind"] = a.refusals_by_kind;
  j["refusal_messages"] = a.refusal_messages;
  j["refused_behind_max_ms"] = a.refused_behind_max_ms;
  if (a.id_skew_min_ms) {
    j["id_skew_ms"] = {{"min", *a.id_skew_min_ms}, {"max", *a.id_skew_max_ms}};
  } else {
    j["id_skew_ms"] = nullptr;
  }
  j["wrapped_ids"] = a.wrapped_ids;
  if (r.lifetime_last_unix_ms) j["lifetime_last_utc"] = format_utc_ms(*r.lifetime_last_unix_ms);
  json nodes = json::array();
  for (const auto& n : a.nodes) {
    nodes.push_back({{"node", n.node},
                     {"node_id", n.node_id},
                     {"ids_per_incarnation", n.ids_per_incarnation},
                     {"refusals", n.refusals},
                     {"refused_ms", round3(n.refused_ms)},
                     {"unavailable_ms", round3(n.unavailable_ms)},
                     {"down_ms", round3(n.down_ms)},
                     {"max_stall_ms", round3(n.max_stall_ms)}});
  }
  j["per_node"] = std::move(nodes);
  json streams = json::array();
  for (const auto& s : a.streams) {
    streams.push_back(
        {{"stream", s.name}, {"ids", s.ids}, {"order_violations", s.order_violations}});
  }
  j["streams"] = std::move(streams);
  j["config"] = {
      {"layout", r.config.layout},
      {"threads", r.config.threads},
      {"rate_per_node", r.config.rate},
      {"duration_ms", r.duration_ms},
      {"time_scale", r.config.time_scale},
      {"node_ids", r.node_ids},
      {"reserve_ms", r.config.persist_dir.empty() ? json(nullptr) : json(r.config.reserve_ms)},
      {"stall_threshold_ms", kStallThresholdNs / 1e6},
      {"scenario_summary", r.scenario_summary}};
  j["wall_seconds"] = round3(r.wall_seconds);
  if (with_timeline) j["timeline"] = timeline_json(r);
  return j;
}

}  // namespace idbench::chaos
