// idbench list — what can be chosen: variants, layouts, policies; as text or (--json) data.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.hpp"
#include "generators/layout.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"
#include "real/catalog_json.hpp"
#include "real/systems.hpp"

namespace idbench::cli {

void add_list_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("list", "List variants, layouts, policies and real systems, one a line");
  static bool as_json = false;
  cmd->add_flag(
      "--json", as_json,
      "Print every variant's full description, the layouts, policies and real systems as JSON");
  cmd->callback([] {
    if (as_json) {
      fmt::print("{}\n", real::catalog_json().dump(1));
      return;
    }
    fmt::print("variants:\n");
    for (const auto& v : variants()) {
      fmt::print("  {:<15} {:<8} {}\n", v.name, v.width == IdWidth::bits64 ? "64-bit" : "128-bit",
                 v.summary);
    }
    fmt::print(
        "layouts (--layout NAME, or a spec ts=B,node=B[+B],seq=B[,unit=Nms|Ns][,epoch=MS]):\n");
    for (const auto& p : Layout::presets()) {
      const Layout layout = Layout::parse(p.name);
      // The summary's title (before its colon) names the scheme and version, e.g. Sonyflake v1.
      const std::string_view title = p.summary.substr(0, p.summary.find(':'));
      fmt::print("  {:<13} {:<58} lasts until {}, cap {:.0f} IDs/s per node ({})\n", p.name,
                 layout.spec(), format_utc_ms(layout.last_unix_ms()).substr(0, 10),
                 layout.cap_per_second(), title);
    }
    fmt::print("policies (--policy NAME[:BOUND_MS], time-based variants):\n");
    for (const auto& p : policy_catalog()) fmt::print("  {:<13} {}\n", p.name, p.summary);
    fmt::print(
        "real systems (a database scheme or a generator nobody here wrote, via an adapter):\n");
    std::size_t name_width = 0, scheme_width = 0;  // the columns as wide as their longest entry
    for (const auto& s : real::real_systems()) {
      name_width = std::max(name_width, s.name.size());
      scheme_width = std::max(scheme_width, s.scheme.size());
    }
    for (const auto& s : real::real_systems()) {
      fmt::print("  {:<{}} {:<{}} {}\n", s.name, name_width, s.scheme, scheme_width, s.summary);
    }
  });
}

}  // namespace idbench::cli
