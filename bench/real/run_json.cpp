// run_json.cpp — the real-system bench's record as JSON (see run_json.hpp).
#include "bench/real/run_json.hpp"

#include "plumbing/run_context.hpp"

namespace idbench::realbench {
namespace {

using nlohmann::json;

json optional_json(const auto& v) { return v ? json(*v) : json(nullptr); }

json to_json(const bench::LatencyHistogram& h) {
  if (h.count() == 0) return nullptr;
  return {{"p50", h.value_at_quantile(0.5)},
          {"p99", h.value_at_quantile(0.99)},
          {"p999", h.value_at_quantile(0.999)},
          {"max", h.max()}};
}

json system_side_json(const CellFigures& f) {
  if (!f.system_side) return nullptr;
  return {{"ids_per_s", f.system_side->ids_per_s},
          {"ids_per_s_per_client", f.clients > 0 ? f.system_side->ids_per_s / f.clients : 0},
          {"latency_ns", to_json(f.system_side->latency_ns)}};
}

json direct_json(const std::optional<CellFigures>& d) {
  if (!d) return nullptr;
  return {{"seconds", d->seconds},
          {"ids", d->ids},
          {"requests", d->requests},
          {"ids_per_s", d->ids_per_s()},
          {"ids_per_s_per_client", d->ids_per_s_per_client()},
          {"latency_ns", to_json(d->latency_ns)},
          {"error", d->error.empty() ? json(nullptr) : json(d->error)},
          {"counters", optional_json(d->adapter_counters)}};
}

json to_json(const CellRecord& c) {
  const CellFigures& f = c.figures;
  json j = {{"system", c.system},
            {"scheme", c.description ? c.description->scheme : ""},
            {"lower_bound_variant", c.description ? c.description->lower_bound_variant : ""},
            {"command", c.command},
            {"durability", nullptr},
            {"server", c.server},
            {"clients", f.clients},
            {"request_size", f.request_size},
            {"seconds", f.seconds},
            {"ids", f.ids},
            {"requests", f.requests},
            {"ids_per_s", f.ids_per_s()},
            {"ids_per_s_per_client", f.ids_per_s_per_client()},
            {"ids_per_client", f.ids_per_client},
            {"latency_ns", to_json(f.latency_ns)},
            {"failed_clients", f.failed_clients},
            {"error", f.error.empty() ? json(nullptr) : json(f.error)},
            {"adapter_counters", optional_json(f.adapter_counters)},
            {"system_side", system_side_json(f)},
            {"direct", direct_json(c.direct)}};
  if (c.settings && c.description) {
    j["durability"] = real::durability_json(c.description->server_kind, *c.settings);
  }
  return j;
}

json to_json(const LocalityRecord& l) {
  const LocalityFigures& f = l.figures;
  json j = {{"system", l.system},
            {"scheme", l.description ? l.description->scheme : ""},
            {"lower_bound_variant", l.description ? l.description->lower_bound_variant : ""},
            {"durability", nullptr},
            {"clients", f.clients},
            {"request_size", 1},
            {"planned_rows", f.planned_rows},
            {"rows", f.rows},
            {"seconds", f.seconds},
            {"engine", nullptr},
            {"key_type", nullptr},
            {"leaf_pages", nullptr},
            {"avg_leaf_fill", nullptr},
            {"splits_per_1k", nullptr},
            {"height", nullptr},
            {"note", f.note.empty() ? json(nullptr) : json(f.note)},
            {"error", f.error.empty() ? json(nullptr) : json(f.error)},
            {"adapter_counters", optional_json(f.adapter_counters)}};
  if (l.settings && l.description) {
    j["durability"] = real::durability_json(l.description->server_kind, *l.settings);
  }
  if (const auto& m = f.metrics) {
    j["engine"] = m->engine + " (" + m->engine_version + ")";
    j["key_type"] = locality::name_of(m->key_type);
    j["leaf_pages"] = optional_json(m->leaf_pages);
    j["avg_leaf_fill"] = optional_json(m->avg_leaf_fill);
    j["splits_per_1k"] = optional_json(m->splits_per_1k);
    j["height"] = optional_json(m->height);
  }
  json rows = json::array();
  for (const auto& [payload, m] : f.at_payloads) {
    rows.push_back({{"payload_bytes", payload}, {"leaf_pages", optional_json(m.leaf_pages)},
                    {"avg_leaf_fill", optional_json(m.avg_leaf_fill)},
                    {"splits_per_1k", optional_json(m.splits_per_1k)},
                    {"height", optional_json(m.height)}});
  }
  j["row_sizes"] = std::move(rows);
  return j;
}

json to_json(const Target& t) {
  if (t.system == nullptr) {
    return {{"name", t.name},    {"summary", "--exec " + t.exec.command},
            {"scheme", ""},      {"lower_bound_variant", ""},
            {"server_kind", ""}, {"servers", 0}};
  }
  return {{"name", t.system->name},
          {"summary", t.system->summary},
          {"scheme", t.system->scheme},
          {"lower_bound_variant", t.system->lower_bound_variant},
          {"server_kind", real::name_of(t.system->server_kind)},
          {"servers", t.system->servers}};
}

}  // namespace

json to_json(const RunPlan& plan, const RunRecord& record, const std::string& profile) {
  json systems = json::array();
  for (const Target& t : plan.targets) systems.push_back(to_json(t));
  json cells = json::array();
  for (const CellRecord& c : record.cells) cells.push_back(to_json(c));
  json hop = json::array();
  for (const CellRecord& c : record.hop) hop.push_back(to_json(c));
  json locality = json::array();
  for (const LocalityRecord& l : record.locality) locality.push_back(to_json(l));
  return {{"context", plumbing::to_json(plumbing::current_run_context())},
          {"complete", record.complete},
          {"profile", profile},
          {"config",
           {{"clients", plan.clients},
            {"requests", plan.requests},
            {"flush", plan.flush},
            {"binlog", plan.binlog},
            {"warmup_s", static_cast<double>(plan.warmup_ns) / 1e9},
            {"seconds", static_cast<double>(plan.duration_ns) / 1e9},
            {"locality_rows", plan.locality_rows},
            {"locality_clients", plan.locality_clients},
            {"locality_max_seconds", plan.locality_max_seconds},
            {"direct", plan.direct}}},
          {"planned", record.planned},
          {"errors", record.errors()},
          {"locality_errors", record.locality_errors()},
          {"systems", systems},
          {"cells", cells},
          {"harness_hop", hop},
          {"locality", locality}};
}

}  // namespace idbench::realbench
