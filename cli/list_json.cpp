// list_json.cpp — the catalog of variants, layouts and policies as JSON (see list_json.hpp).
#include "cli/list_json.hpp"

#include "generators/layout.hpp"
#include "generators/policy.hpp"

namespace idbench::cli {

using json = nlohmann::ordered_json;

json variant_json(const Variant& v) {
  json j;
  j["name"] = v.name;
  j["summary"] = v.summary;
  j["family"] = v.family;
  j["scheme"] = v.scheme;
  j["width_bits"] = v.width == IdWidth::bits64 ? 64 : 128;
  j["ordering"] = name_of(v.ordering);
  j["time_based"] = v.time_based;
  j["uses_layout"] = v.uses_layout;
  j["node_ids"] = name_of(v.node_ids);
  j["id_time"] = name_of(v.id_time);
  j["in_process_lower_bound"] = v.in_process_lower_bound;
  j["defaults"] = {{"chaos", v.defaults.chaos},
                   {"chaos_quick", v.defaults.chaos_quick},
                   {"locality", v.defaults.locality}};
  return j;
}

namespace {

json layout_json(const Layout::Preset& preset) {
  // Presets are fixed data: their epochs are not checked against a clock.
  const Layout layout = Layout::parse(preset.name, std::numeric_limits<std::int64_t>::max());
  return {{"name", preset.name},
          {"spec", layout.spec()},
          {"summary", preset.summary},
          {"epoch_unix_ms", layout.epoch_unix_ms()},
          {"unit_ms", layout.unit_ms()},
          {"last_unix_ms", layout.last_unix_ms()},
          {"last_utc", format_utc_ms(layout.last_unix_ms())},
          {"max_node", layout.max_node()},
          {"cap_per_second", layout.cap_per_second()}};
}

}  // namespace

json catalog_json() {
  json j;
  j["variants"] = json::array();
  for (const auto& v : variants()) j["variants"].push_back(variant_json(v));
  j["layouts"] = json::array();
  for (const auto& p : Layout::presets()) j["layouts"].push_back(layout_json(p));
  j["policies"] = json::array();
  for (const auto& p : policy_catalog()) {
    j["policies"].push_back(
        {{"name", p.name}, {"default_bound_ms", p.default_bound_ms}, {"summary", p.summary}});
  }
  return j;
}

}  // namespace idbench::cli
