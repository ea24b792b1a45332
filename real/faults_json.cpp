// faults_json.cpp — a fault run as the JSON the report draws; faults_text.cpp writes the same
// run's verdict lines. Formats only: every number comes from faults_analysis.cpp and
// faults_judge.cpp.
#include "fault/verdict_json.hpp"
#include "real/faults.hpp"
#include "real/systems.hpp"

namespace idbench::real {
namespace {

nlohmann::ordered_json optional_ms(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json to_json(const FaultFigures& f) {
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
  std::vector<nlohmann::ordered_json> ids(f.ids_per_server.size(), nlohmann::ordered_json::array());
  for (const TimelineBucket& b : f.timeline) {
    t_ms.push_back(b.t_ms);
    failures.push_back(b.failures);
    skew_min.push_back(optional_ms(b.skew_min_ms));
    skew_max.push_back(optional_ms(b.skew_max_ms));
    for (std::size_t s = 0; s < ids.size() && s < b.ids.size(); ++s) ids[s].push_back(b.ids[s]);
  }
  return {{"bucket_ms", kTimelineBucketMs}, {"t_ms", t_ms},
          {"ids_per_server", ids},          {"failures", failures},
          {"skew_min_ms", skew_min},        {"skew_max_ms", skew_max}};
}

nlohmann::ordered_json to_json(const FaultPart& p) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const fault::FaultRecord& e : p.records.events) {
    events.push_back({{"t_ms", p.records.ms_since_start(e.true_ns)}, {"what", e.what}});
  }
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const ClockProbe& c : p.records.probes) {
    probes.push_back({{"t_ms", p.records.ms_since_start(c.true_ns)},
                      {"server_minus_true_ms", c.server_minus_true_ms},
                      {"server_pid", c.server_pid}});
  }
  // What the system stands for, from its description, so a reader can place a part that ran
  // under faults only (never benched) in its scheme's row.
  const RealSystem* described = find_real_system(p.system);
  return {{"system", p.system},
          {"scheme", described ? described->scheme : ""},
          {"lower_bound_variant", described ? described->lower_bound_variant : ""},
          {"server_kind", described ? name_of(described->server_kind) : ""},
          {"label", p.label},
          {"settings", p.settings},
          {"width", p.width == IdWidth::bits64 ? 64 : 128},
          {"id_time", name_of(p.id_time)},
          {"servers", p.records.servers},
          {"verdict", fault::to_json(p.verdict)},
          {"figures", to_json(p.figures)},
          {"events", events},
          {"probes", probes},
          {"timeline", timeline_json(p.figures)},
          {"adapter_counters", p.records.adapter_stderr.counters
                                   ? nlohmann::ordered_json(*p.records.adapter_stderr.counters)
                                   : nlohmann::ordered_json(nullptr)},
          {"adapter_stderr", p.records.adapter_stderr.lines}};
}

}  // namespace

nlohmann::ordered_json to_json(const FaultRun& run) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const FaultPart& p : run.parts) parts.push_back(to_json(p));
  return {{"scenario", run.scenario},
          {"description", run.description},
          {"verdict", fault::to_json(run.verdict)},
          {"parts", parts}};
}

}  // namespace idbench::real
