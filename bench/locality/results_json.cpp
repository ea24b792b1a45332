// results_json.cpp — locality results as JSON (see results_json.hpp).
#include "bench/locality/results_json.hpp"

#include "plumbing/run_context.hpp"

namespace idbench::locality {

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json stream_json(const StreamSpec& spec, const RunResult& result) {
  const nlohmann::json variant =
      spec.variant.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.variant);
  return {{"description", result.description},
          {"variant", variant},
          {"synthetic", to_string(spec.synthetic)},
          {"keys_file", spec.keys_file},
          {"layout", spec.layout},
          {"rate_per_ms", spec.rate},
          {"achieved_rate_per_ms", result.achieved_rate},
          {"writers", spec.writers},
          {"arrival", to_string(spec.arrival)},
          {"seed", spec.seed}};
}

nlohmann::json validation_row_json(const ValidationRow& r) {
  return {{"stream", r.stream.label},
          {"key_type", to_string(r.key_type)},
          {"payload_bytes", r.payload_bytes},
          {"tolerance", r.tolerance},
          {"error", opt(r.error())},
          {"pass", r.pass()},
          {"model", to_json(r.model)},
          {"innodb", r.innodb ? to_json(*r.innodb) : nlohmann::json(nullptr)},
          {"sqlite", r.sqlite ? to_json(*r.sqlite) : nlohmann::json(nullptr)},
          {"postgres", r.postgres ? to_json(*r.postgres) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json context_json() { return plumbing::to_json(plumbing::current_run_context()); }

nlohmann::json to_json(const Metrics& m) {
  return {{"engine", m.engine},
          {"engine_version", m.engine_version},
          {"rows", m.rows},
          {"key_type", to_string(m.key_type)},
          {"leaf_pages", opt(m.leaf_pages)},
          {"avg_leaf_fill", opt(m.avg_leaf_fill)},
          {"splits_per_1k", opt(m.splits_per_1k)},
          {"height", opt(m.height)},
          {"distinct_leaves_per_1k", opt(m.distinct_leaves_per_1k)},
          {"pool_miss_rate", opt(m.pool_miss_rate)},
          {"pool_pages", opt(m.pool_pages)},
          {"inserts_per_s", opt(m.inserts_per_s)},
          {"seconds", m.seconds},
          {"note", m.note}};
}

nlohmann::json run_json(const RunSpec& spec, const RunResult& result) {
  nlohmann::json j = to_json(result.metrics);
  j["stream"] = stream_json(spec.stream, result);
  j["payload_bytes"] = spec.payload_bytes;
  j["context"] = context_json();
  return j;
}

nlohmann::json validation_json(const ValidationReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : report.rows) rows.push_back(validation_row_json(r));
  return {{"validation", rows},
          {"innodb_ran", report.innodb_ran},
          {"pass", report.innodb_ran && report.pass()},
          {"unavailable", report.unavailable},
          {"context", context_json()}};
}

}  // namespace idbench::locality
