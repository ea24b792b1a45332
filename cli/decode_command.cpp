// idbench decode — every field of an ID, and the UTC time it carries.
#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>

#include "check/id_text.hpp"
#include "cli/commands.hpp"
#include "generators/errors.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/uuid_format.hpp"

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
  if (layout.gen_bits() > 0) out["gen"] = f.gen;  // the clock-sequence generation
  out["seq"] = f.seq;
  // Bits above the layout's fields (the spare sign bit, or more in a narrow layout) are never
  // set by a generator of this layout: the fields above would describe some other ID.
  const int used = layout.used_bits();
  if (used < 64 && (id >> used) != 0) {
    out["valid"] = false;
    out["warning"] = fmt::format(
        "{} sets bit {} above the {} bits layout {} uses (its spare bit{}): not an ID this "
        "layout issues",
        id, 63 - std::countl_zero(id), used, layout.name(), used < 63 ? "s" : "");
  }
  return out;
}

// v1 and v6 (RFC 9562 §5.1, §5.6): the time, and the 100 ns count, clock sequence (its 14
// bits, the variant bits removed) and node in hex, as the RFC lists them.
void add_dce_fields(nlohmann::ordered_json& out, const uuid_format::DceFields& f) {
  const std::int64_t ms = uuid_format::unix_ms_of_timestamp(f.timestamp);
  out["time"] = format_utc_ms(ms);
  out["unix_ms"] = ms;
  out["timestamp"] = fmt::format("{:#x}", f.timestamp);
  out["clock_seq"] = fmt::format("{:#06x}", f.clock_seq);
  out["node"] = fmt::format("{:012x}", f.node);
  // §6.10: a node that is not an IEEE 802 address sets the multicast bit (its first octet's
  // least significant bit), which no real interface address has.
  out["node_kind"] = (f.node >> 40) & 1 ? "random (multicast bit set)" : "IEEE 802 address";
}

// v8 (RFC 9562 §5.8) leaves its bits to each program, so they are read as idbench's uuidv8
// lays them out, and labelled so.
void add_v8_fields(nlohmann::ordered_json& out, const uuid_format::V8Fields& f) {
  out["read_as"] = "idbench uuidv8";
  const auto ms = static_cast<std::int64_t>(f.unix_ms);
  out["time"] = format_utc_ms(ms);
  out["unix_ms"] = ms;
  out["node"] = f.node;
  out["counter"] = f.counter;
  out["random"] = fmt::format("{:#010x}", f.random);
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
  if (const auto f = uuid_format::dce_fields(u)) add_dce_fields(out, *f);
  if (const auto f = uuid_format::v8_fields(u)) add_v8_fields(out, *f);
  return out;
}

// The width of one command-line ID: given, or inferred by the rule in check/id_text.hpp.
IdWidth width_of(const std::string& text, int id_bits) {
  if (id_bits != 0) return id_bits == 128 ? IdWidth::bits128 : IdWidth::bits64;
  const WidthGuess guess = infer_id_width(text);
  if (!guess.width) throw Error(guess.problem);
  return *guess.width;
}

}  // namespace

void add_decode_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "decode", "Decode IDs: fields and UTC time (64-bit by --layout; UUIDs by version)");
  auto layout_name = std::make_shared<std::string>("twitter");
  auto ids = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto id_bits = std::make_shared<int>(0);
  cmd->add_option("--layout", *layout_name, "layout preset or spec for 64-bit IDs")
      ->capture_default_str();
  cmd->add_option("--id-bits", *id_bits,
                  "64 or 128 (default: decimal up to 20 digits is 64-bit, a UUID 128; 32 "
                  "decimal digits are ambiguous and refused)")
      ->check(CLI::IsMember({64, 128}));
  cmd->add_flag("--json", *json, "one JSON object per ID");
  cmd->add_option("ids", *ids, "IDs: decimal 64-bit, or a UUID")->required();
  cmd->callback([=] {
    const Layout layout = Layout::parse(*layout_name);
    for (const std::string& text : *ids) {
      const IdWidth width = width_of(text, *id_bits);
      const auto id = parse_id_text(text, width);
      if (!id) throw Error(explain_bad_id(text, width));
      const nlohmann::ordered_json out =
          width == IdWidth::bits64 ? decode_u64(id->lo, layout) : decode_uuid(id->to_uuid());
      if (*json) {
        fmt::print("{}\n", out.dump());
        continue;
      }
      std::string line;
      for (const auto& [key, value] : out.items()) {
        if (key == "valid" || key == "warning") continue;
        line += fmt::format("{}{}={}", line.empty() ? "" : "  ", key,
                            value.is_string() ? value.get<std::string>() : value.dump());
      }
      fmt::print("{}\n", line);
      if (out.contains("warning")) {
        fmt::print(stderr, "idbench: warning: {}\n", out["warning"].get<std::string>());
      }
    }
  });
}

}  // namespace idbench::cli
