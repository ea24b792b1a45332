// catalog_json.hpp — the catalog of what can be run, as data: every variant's description (all
// of `Variant` but its factory), the layout presets, the policies and the real systems.
// `idbench list --json` prints it and the bench writes it into its results; scripts and
// reports read this instead of scraping the text listing. It lives here, above generators/,
// because real/ is the lowest layer that sees every thing it describes.
//
//   {"variants": [{"name": NAME, "family": "snowflake", "ordering": "k_sorted", ...}],
//    "layouts": [{"name": "twitter", "spec": "ts=41,...", "last_unix_ms": ..., ...}],
//    "policies": [{"name": "refuse", "default_bound_ms": 0, "summary": ...}]}
#pragma once

#include <nlohmann/json.hpp>

#include "generators/registry.hpp"

namespace idbench::real {

// One variant's description.
nlohmann::ordered_json to_json(const Variant& v);
// The whole catalog. It takes no value: it gathers every registry itself, so it is named for
// what it writes, as every argument-less writer is (`<what>_json()`).
nlohmann::ordered_json catalog_json();

}  // namespace idbench::real
