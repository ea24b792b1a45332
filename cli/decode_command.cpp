// idbench decode — every field of an ID, and the UTC time it carries.
#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "generators/errors.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"

namespace idbench::cli {
namespace {

nlohmann::ordered_json decode_u64(std::uint64_t id, const Layout& layout) {
  const LayoutFields f = layout.decode(id);
  nlohmann::ordered_json out;
  out["id"] = std::to_string(id);  // a string, as Discord sends it: JSON numbers lose bits
  out["layout"] = layout.name();
  out["time"] = format_utc_ms(layout.unix_ms_of_tick(f.tick));
  out["unix_ms"] = layout.unix_ms_of_tick(f.tick);
  out["tick"] = f.tick;
  const auto parts = layout.split_node(f.node);
  for (std::size_t i = 0; i < parts.size(); ++i) out[layout.node_parts()[i].name] = parts[i];
  if (parts.size() > 1) out["node"] = f.node;
  out["seq"] = f.seq;
  return out;
}

nlohmann::ordered_json decode_uuid(const Uuid& u) {
  nlohmann::ordered_json out;
  out["id"] = u.to_string();
  out["version"] = u.version();
  const int variant_bits = u.bytes[8] >> 6;
  out["variant"] = variant_bits == 0b10 ? "RFC 9562" : "other";
  if (u.version() == 7) {
    const auto ms = static_cast<std::int64_t>(u.v7_unix_ms());
    out["time"] = format_utc_ms(ms);
    out["unix_ms"] = ms;
  }
  return out;
}

}  // namespace

void add_decode_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "decode", "Decode IDs: fields and UTC time (64-bit by --layout; UUIDs by version)");
  auto layout_name = std::make_shared<std::string>("twitter");
  auto ids = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--layout", *layout_name, "layout preset or spec for 64-bit IDs")
      ->capture_default_str();
  cmd->add_flag("--json", *json, "one JSON object per ID");
  cmd->add_option("ids", *ids, "IDs: decimal 64-bit, or a UUID")->required();
  cmd->callback([=] {
    const Layout layout = Layout::parse(*layout_name);
    for (const std::string& text : *ids) {
      nlohmann::ordered_json out;
      std::uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc{} && ptr == text.data() + text.size()) {
        out = decode_u64(v, layout);
      } else if (auto u = Uuid::parse(text)) {
        out = decode_uuid(*u);
      } else {
        throw Error(fmt::format("'{}' is neither a decimal 64-bit ID nor a UUID", text));
      }
      if (*json) {
        fmt::print("{}\n", out.dump());
        continue;
      }
      std::string line;
      for (const auto& [key, value] : out.items()) {
        line += fmt::format("{}{}={}", line.empty() ? "" : "  ", key,
                            value.is_string() ? value.get<std::string>() : value.dump());
      }
      fmt::print("{}\n", line);
    }
  });
}

}  // namespace idbench::cli
