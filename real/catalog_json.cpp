// catalog_json.cpp — the catalog of variants, layouts, policies and real systems as JSON (see
// catalog_json.hpp).
#include "real/catalog_json.hpp"

#include "generators/layout.hpp"
#include "generators/policy.hpp"
#include "real/systems.hpp"

namespace idbench::real {

using json = nlohmann::ordered_json;

json to_json(const Variant& v) {
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
  j["own_clock"] = v.own_clock;
  j["defaults"] = {{"chaos", v.defaults.chaos},
                   {"chaos_quick", v.defaults.chaos_quick},
                   {"locality", v.defaults.locality},
                   {"clock_sequence", v.defaults.clock_sequence},
                   {"clock_sequence_quick", v.defaults.clock_sequence_quick},
                   {"locality_live_pace", v.defaults.locality_live_pace}};
  return j;
}

namespace {

json to_json(const Layout::Preset& preset) {
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

// A real system as data: what its adapter's IDs are (as --exec describes them) and its servers.
json to_json(const RealSystem& s) {
  json servers = json::array();
  for (int i = 0; i < s.servers; ++i) {
    const MariadbSettings m = s.server_settings(i, {}).mariadb;
    servers.push_back(s.server_kind == ServerKind::mariadb
                          ? json{{"auto_increment_increment", m.auto_increment_increment},
                                 {"auto_increment_offset", m.auto_increment_offset}}
                          : json::object());
  }
  json j = {{"name", s.name},
            {"summary", s.summary},
            {"scheme", s.scheme},
            {"lower_bound_variant", s.lower_bound_variant},
            {"server_kind", name_of(s.server_kind)},
            {"servers", s.servers},
            {"server_settings", servers},
            {"command", s.exec.command},
            {"id_time", name_of(s.exec.id_time)},
            {"width_bits", s.exec.width == IdWidth::bits128 ? 128 : 64},
            {"ordering", name_of(s.exec.ordering)},
            {"in_quick_pass", s.in_quick_pass}};
  if (s.exec.id_time == IdTime::layout) j["layout"] = s.exec.layout;
  return j;
}

}  // namespace

json catalog_json() {
  json j;
  j["variants"] = json::array();
  for (const auto& v : variants()) j["variants"].push_back(to_json(v));
  j["layouts"] = json::array();
  for (const auto& p : Layout::presets()) j["layouts"].push_back(to_json(p));
  j["policies"] = json::array();
  for (const auto& p : policy_catalog()) {
    j["policies"].push_back(
        {{"name", p.name}, {"default_bound_ms", p.default_bound_ms}, {"summary", p.summary}});
  }
  j["systems"] = json::array();
  for (const auto& s : real_systems()) j["systems"].push_back(to_json(s));
  return j;
}

}  // namespace idbench::real
