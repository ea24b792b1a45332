// run_json.cpp — locality results as JSON (see run_json.hpp).
#include "bench/locality/run_json.hpp"

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
          {"synthetic", name_of(spec.synthetic)},
          {"keys_file", spec.keys_file},
          {"layout", spec.layout},
          {"rate_per_ms", spec.rate},
          {"achieved_rate_per_ms", result.achieved_rate},
          {"writers", spec.writers},
          {"node_major", spec.node_major},
          {"arrival", name_of(spec.arrival)},
          {"seed", spec.seed}};
}

nlohmann::json secondary_errors_json(const ValidationRow& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : r.secondary_errors()) out.push_back(opt(e));
  return out;
}

nlohmann::json to_json(const ValidationRow& r) {
  return {{"stream", r.stream.label},
          {"key_type", name_of(r.key_type)},
          {"payload_bytes", r.payload_bytes},
          {"secondary_indexes", r.stream.secondary},
          {"secondary_errors", secondary_errors_json(r)},
          {"tolerance", r.tolerance},
          {"error", opt(r.error())},
          {"pass", r.pass()},
          {"model", to_json(r.model)},
          {"innodb", r.innodb ? to_json(*r.innodb) : nlohmann::json(nullptr)},
          {"sqlite", r.sqlite ? to_json(*r.sqlite) : nlohmann::json(nullptr)},
          {"postgres", r.postgres ? to_json(*r.postgres) : nlohmann::json(nullptr)}};
}

// The secondary indexes, and the leaf pages of the whole table (clustered + secondaries);
// null without secondary indexes.
nlohmann::json secondary_json(const Metrics& m) {
  if (m.secondary.empty()) return nullptr;
  nlohmann::json indexes = nlohmann::json::array();
  std::uint64_t total = m.leaf_pages.value_or(0);
  for (const auto& i : m.secondary) {
    indexes.push_back(
        {{"index", i.name}, {"leaf_pages", i.leaf_pages}, {"avg_leaf_fill", i.avg_leaf_fill}});
    total += i.leaf_pages;
  }
  return {{"indexes", indexes}, {"table_leaf_pages", total}};
}

}  // namespace

nlohmann::json context_json() { return plumbing::to_json(plumbing::current_run_context()); }

nlohmann::json to_json(const Metrics& m) {
  return {{"engine", m.engine},
          {"engine_version", m.engine_version},
          {"rows", m.rows},
          {"key_type", name_of(m.key_type)},
          {"leaf_pages", opt(m.leaf_pages)},
          {"avg_leaf_fill", opt(m.avg_leaf_fill)},
          {"splits_per_1k", opt(m.splits_per_1k)},
          {"height", opt(m.height)},
          {"distinct_leaves_per_1k", opt(m.distinct_leaves_per_1k)},
          {"pool_miss_rate", opt(m.pool_miss_rate)},
          {"pool_pages", opt(m.pool_pages)},
          {"inserts_per_s", opt(m.inserts_per_s)},
          {"secondary", secondary_json(m)},
          {"seconds", m.seconds},
          {"note", m.note}};
}

nlohmann::json to_json(const RunSpec& spec, const RunResult& result) {
  nlohmann::json j = to_json(result.metrics);
  j["stream"] = stream_json(spec.stream, result);
  j["payload_bytes"] = spec.payload_bytes;
  j["secondary_indexes"] = spec.secondary;
  j["context"] = context_json();
  return j;
}

nlohmann::json to_json(const ValidationReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : report.rows) rows.push_back(to_json(r));
  return {{"validation", rows},
          {"innodb_ran", report.innodb_ran},
          {"pass", report.innodb_ran && report.pass()},
          {"unavailable", report.unavailable},
          {"context", context_json()}};
}

}  // namespace idbench::locality
