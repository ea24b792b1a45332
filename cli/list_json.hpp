// list_json.hpp — the catalog `idbench list --json` prints: every variant's description (all
// of `Variant` but its factory), the layout presets and the policies. Scripts and reports read
// this instead of scraping the text listing.
//
//   {"variants": [{"name": NAME, "family": "snowflake", "ordering": "k_sorted", ...}],
//    "layouts": [{"name": "twitter", "spec": "ts=41,...", "last_unix_ms": ..., ...}],
//    "policies": [{"name": "refuse", "default_bound_ms": 0, "summary": ...}]}
#pragma once

#include <nlohmann/json.hpp>

#include "generators/registry.hpp"

namespace idbench::cli {

// One variant's description.
nlohmann::ordered_json variant_json(const Variant& v);
// The whole catalog.
nlohmann::ordered_json catalog_json();

}  // namespace idbench::cli
