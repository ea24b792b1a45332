// faults_report.cpp — a fault run as text (verdict lines) and as the JSON the report draws.
// Formats only: every number comes from faults_analysis.cpp and faults_judge.cpp.
#include <fmt/format.h>

#include "real/faults.hpp"

namespace idbench::real {
namespace {

nlohmann::ordered_json verdict_json(const fault::Verdict& v) {
  return {{"verdict", fault::name_of(v.outcome)},
          {"passed", v.passed()},
          {"evidence", v.evidence},
          {"findings", v.findings}};
}

nlohmann::ordered_json optional_ms(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json figures_json(const FaultFigures& f) {
  return {{"requests", f.requests},
          {"ids", f.ids},
          {"failures", f.failures},
          {"availability", f.availability},
          {"longest_gap_ms", f.longest_gap_ms},
          {"duplicates", f.duplicates},
          {"duplicated_values", f.duplicated_values},
          {"duplicate_examples", f.duplicate_examples},
          {"order_violations", f.order_violations},
          {"regressions", f.regressions},
          {"ksort_bound_ms", f.ksort_bound_ms},
          {"ids_per_server", f.ids_per_server},
          {"max_server_lag", f.max_server_lag},
          {"skew_min_ms", optional_ms(f.skew_min_ms)},
          {"skew_max_ms", optional_ms(f.skew_max_ms)}};
}

// Columns, one entry per bucket: easy to draw, small to store.
nlohmann::ordered_json timeline_json(const FaultFigures& f) {
  nlohmann::ordered_json t_ms = nlohmann::ordered_json::array();
  nlohmann::ordered_json failures = nlohmann::ordered_json::array();
  nlohmann::ordered_json skew_min = nlohmann::ordered_json::array();
  nlohmann::ordered_json skew_max = nlohmann::ordered_json::array();
  std::vector<nlohmann::ordered_json> ids(f.ids_per_server.size(),
                                          nlohmann::ordered_json::array());
  for (const TimelineBucket& b : f.timeline) {
    t_ms.push_back(b.t_ms);
    failures.push_back(b.failures);
    skew_min.push_back(optional_ms(b.skew_min_ms));
    skew_max.push_back(optional_ms(b.skew_max_ms));
    for (std::size_t s = 0; s < ids.size() && s < b.ids.size(); ++s) ids[s].push_back(b.ids[s]);
  }
  return {{"bucket_ms", kTimelineBucketMs}, {"t_ms", t_ms},         {"ids_per_server", ids},
          {"failures", failures},           {"skew_min_ms", skew_min}, {"skew_max_ms", skew_max}};
}

nlohmann::ordered_json part_json(const FaultPart& p) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const fault::FaultRecord& e : p.records.events) {
    events.push_back({{"t_ms", p.records.ms_since_start(e.true_ns)}, {"what", e.what}});
  }
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const ClockProbe& c : p.records.probes) {
    probes.push_back({{"t_ms", p.records.ms_since_start(c.true_ns)},
                      {"server_minus_true_ms", c.server_minus_true_ms}});
  }
  return {{"system", p.system},
          {"label", p.label},
          {"settings", p.settings},
          {"width", p.width == IdWidth::bits64 ? 64 : 128},
          {"id_time", name_of(p.id_time)},
          {"servers", p.records.servers},
          {"verdict", verdict_json(p.verdict)},
          {"figures", figures_json(p.figures)},
          {"events", events},
          {"probes", probes},
          {"timeline", timeline_json(p.figures)},
          {"adapter_counters", p.records.adapter_stderr.counters
                                   ? nlohmann::ordered_json(*p.records.adapter_stderr.counters)
                                   : nlohmann::ordered_json(nullptr)},
          {"adapter_stderr", p.records.adapter_stderr.lines}};
}

}  // namespace

std::string to_text(const FaultRun& run) {
  std::string out = fmt::format("{}: {} — {}\n", run.scenario, fault::name_of(run.verdict.outcome),
                                run.verdict.evidence);
  for (const FaultPart& p : run.parts) {
    const std::string who = p.label.empty() ? p.system : p.system + ", " + p.label;
    out +=
        fmt::format("  {}: {} — {}\n", who, fault::name_of(p.verdict.outcome), p.verdict.evidence);
    out += fmt::format("    settings: {}\n", p.settings);
    for (const std::string& f : p.verdict.findings) out += fmt::format("    {}\n", f);
  }
  return out;
}

nlohmann::ordered_json to_json(const FaultRun& run) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const FaultPart& p : run.parts) parts.push_back(part_json(p));
  return {{"scenario", run.scenario},
          {"description", run.description},
          {"verdict", verdict_json(run.verdict)},
          {"parts", parts}};
}

}  // namespace idbench::real
