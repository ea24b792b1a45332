// results_json.cpp — the real-system bench's record as JSON.
#include "bench/real/results_json.hpp"

#include "plumbing/run_context.hpp"

namespace idbench::realbench {
namespace {

using nlohmann::json;

json latency_json(const bench::LatencyHistogram& h) {
  if (h.count() == 0) return nullptr;
  return {{"p50", h.value_at_quantile(0.5)},
          {"p99", h.value_at_quantile(0.99)},
          {"p999", h.value_at_quantile(0.999)},
          {"max", h.max()}};
}

json cell_json(const CellRecord& c) {
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
            {"latency_ns", latency_json(f.latency_ns)},
            {"failed_clients", f.failed_clients},
            {"error", f.error.empty() ? json(nullptr) : json(f.error)},
            {"adapter_counters", f.adapter_counters ? json(*f.adapter_counters) : json(nullptr)}};
  if (c.settings) {
    j["durability"] = {{"innodb_flush_log_at_trx_commit", c.settings->flush_log_at_trx_commit},
                       {"binlog", c.settings->binlog}};
  }
  return j;
}

json system_json(const Target& t) {
  if (t.system == nullptr) {
    return {{"name", t.name}, {"summary", "--exec " + t.exec.command}, {"scheme", ""},
            {"lower_bound_variant", ""}, {"mariadb_servers", 0}};
  }
  return {{"name", t.system->name}, {"summary", t.system->summary},
          {"scheme", t.system->scheme}, {"lower_bound_variant", t.system->lower_bound_variant},
          {"mariadb_servers", t.system->mariadb_servers}};
}

}  // namespace

json run_json(const RunPlan& plan, const RunRecord& record, const std::string& profile) {
  json systems = json::array();
  for (const Target& t : plan.targets) systems.push_back(system_json(t));
  json cells = json::array();
  for (const CellRecord& c : record.cells) cells.push_back(cell_json(c));
  return {{"context", plumbing::to_json(plumbing::current_run_context())},
          {"complete", record.complete},
          {"profile", profile},
          {"config",
           {{"clients", plan.clients},
            {"requests", plan.requests},
            {"flush", plan.flush},
            {"binlog", plan.binlog},
            {"warmup_s", static_cast<double>(plan.warmup_ns) / 1e9},
            {"seconds", static_cast<double>(plan.duration_ns) / 1e9}}},
          {"planned", record.planned},
          {"errors", record.errors()},
          {"systems", systems},
          {"cells", cells}};
}

}  // namespace idbench::realbench
