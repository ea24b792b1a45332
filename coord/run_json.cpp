// run_json.cpp — WorkerRunResult → JSON.
#include "coord/run_json.hpp"

#include "fault/verdict_json.hpp"

namespace idbench::coord {

namespace {

using nlohmann::json;

json span_json(const Span& s, std::int64_t start) {
  return {{"from_ms", (s.from_ns - start) / 1e6}, {"to_ms", (s.to_ns - start) / 1e6}};
}

json spans_json(const std::vector<Span>& spans, std::int64_t start) {
  json out = json::array();
  for (const Span& s : spans) out.push_back(span_json(s, start));
  return out;
}

json node_json(const WorkerNodeFigures& f, std::int64_t start) {
  json lost = json::array();
  for (std::int64_t at : f.lost) lost.push_back((at - start) / 1e6);
  return {{"node", f.node},
          {"ids", f.ids},
          {"claims", f.claims},
          {"stalled_ms", f.stalled_ns / 1e6},
          {"unavailable_ms", f.unavailable_ns / 1e6},
          {"gaps", spans_json(f.gaps, start)},
          {"stalls", spans_json(f.stalls, start)},
          {"hooks", spans_json(f.hooks, start)},
          {"lost_ms", lost},
          {"zombie_ids", f.zombie_ids},
          {"renewals", f.renewals}};
}

}  // namespace

json to_json(const WorkerRunResult& r) {
  const std::int64_t t0 = r.start_ns;
  const WorkerAnalysis& a = r.analysis;
  json holdings = json::array(), dups = json::array(), faults = json::array(), nodes = json::array();
  for (const Holding& h : a.holdings) {
    holdings.push_back({{"node", h.node}, {"worker", h.worker}, {"counter", h.counter},
                        {"from_ms", (h.span.from_ns - t0) / 1e6}, {"to_ms", (h.span.to_ns - t0) / 1e6}});
  }
  for (const Duplicate& d : a.samples) {
    dups.push_back({{"id", d.id}, {"node_a", d.node_a}, {"node_b", d.node_b},
                    {"at_a_ms", (d.at_a_ns - t0) / 1e6}, {"at_b_ms", (d.at_b_ns - t0) / 1e6}});
  }
  for (const LoggedFault& f : r.faults) faults.push_back({{"at_ms", (f.at_ns - t0) / 1e6}, {"what", f.what}});
  for (const WorkerNodeFigures& f : a.nodes) nodes.push_back(node_json(f, t0));
  const WorkerRunConfig& c = r.config;
  return {{"scenario", c.scenario},
          {"scenario_summary", r.scenario_summary},
          {"behaviour", std::string(name_of(c.behaviour))},
          {"worker_ids", c.etcd ? "etcd" : "static"},
          {"variant", r.variant},
          {"layout", r.layout},
          {"gen_bits", r.gen_bits},
          {"nodes_at_start", c.nodes},
          {"ttl_s", c.ttl_s},
          {"margin_ms", r.margin_ms},
          {"ids_per_ms", c.ids_per_ms},
          {"duration_ms", (r.end_ns - t0) / 1e6},
          {"ids", a.ids},
          {"duplicates", a.duplicates},
          {"verdict", fault::to_json(r.verdict)},
          {"duplicate_samples", dups},
          {"workers_claimed", a.workers_claimed},
          {"worker_space_used", a.worker_space_used},
          {"faults", faults},
          {"holdings", holdings},
          {"nodes", nodes}};
}

}  // namespace idbench::coord
