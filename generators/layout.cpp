#include "generators/layout.hpp"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "generators/clock.hpp"
#include "generators/errors.hpp"

namespace idbench {
namespace {

using Code = LayoutError::Code;

// Presets, as their owners publish them.
constexpr Layout::Preset kPresets[] = {
    {"twitter", "ts=41,node=5+5,seq=12,epoch=1288834974657",
     "Twitter Snowflake 2010: 41-bit ms since twepoch, 5-bit datacenter + 5-bit worker, 12-bit "
     "seq"},
    {"snowflake", "ts=41,node=10,seq=12,epoch=1288834974657",
     "Snowflake as Twitter's README draws it: 41-bit ms, 10-bit machine, 12-bit seq"},
    {"discord", "spare=0,ts=42,node=5+5,seq=12,epoch=1420070400000",
     "Discord: 42-bit ms since 2015-01-01, 5-bit worker, 5-bit process, 12-bit increment"},
    {"sonyflake", "ts=39,node=16,seq=8,unit=10ms,low=node,epoch=1735689600000",
     "Sonyflake v2: 39 bits of 10 ms since 2025-01-01, 8-bit seq, 16-bit machine lowest"},
    // v1's default start time, in use for a decade: a v1 ID read as v2 decodes ~10 years late.
    {"sonyflake-v1", "ts=39,node=16,seq=8,unit=10ms,low=node,epoch=1409529600000",
     "Sonyflake v1: 39 bits of 10 ms since 2014-09-01, 8-bit seq, 16-bit machine lowest"},
    // DefaultUidGenerator's epochStr "2016-05-20" is parsed in China time (UTC+8):
    // 2016-05-19T16:00:00Z.
    {"baidu", "ts=28,node=22,seq=13,unit=1s,epoch=1463673600000",
     "Baidu uid-generator: 28-bit s since 2016-05-20 China time (ran out 2024-11-20), 22-bit "
     "worker, 13-bit seq"},
    // Instagram's PL/pgSQL next_id() ("Sharding & IDs at Instagram", 2012): all 64 bits, 41 of
    // ms since its epoch, a 13-bit logical shard, 10 bits of nextval() % 1024.
    {"instagram", "spare=0,ts=41,node=13,seq=10,epoch=1314220021721",
     "Instagram next_id(): 41-bit ms since 2011-08-24, 13-bit shard, 10-bit nextval % 1024"},
    // A bench layout whose 20-bit sequence (1,048,576 per ms, ~1 G IDs/s) is never the limit,
    // so throughput measures synchronisation, not the format. 38 bits of ms from 2026-01-01
    // last until 2034-09; 4 node bits give thread-local its 16 per-thread node ids.
    {"wide", "ts=38,node=4,seq=20,epoch=1767225600000",
     "bench layout: 38-bit ms since 2026-01-01, 4-bit node, 20-bit seq (cap ~1 G IDs/s)"},
};

// Named part labels for presets; a custom spec's parts are "node" or "node0"/"node1".
std::vector<NodePart> name_parts(std::string_view preset, std::vector<NodePart> parts) {
  if (preset == "twitter") {
    parts[0].name = "datacenter";
    parts[1].name = "worker";
  } else if (preset == "discord") {
    parts[0].name = "worker";
    parts[1].name = "process";
  } else if (preset == "snowflake" || preset == "sonyflake" || preset == "sonyflake-v1") {
    parts[0].name = "machine";
  } else if (preset == "baidu") {
    parts[0].name = "worker";
  } else if (preset == "instagram") {
    parts[0].name = "shard";
  }
  return parts;
}

constexpr std::int64_t kMaxUnitMs = 1000;
// A generation field wider than a DCE clock sequence (14 bits, 16,384 generations) buys
// nothing a layout could use: every bit beyond halves the node space once more.
constexpr int kMaxGenBits = 14;

[[noreturn]] void fail(Code code, std::string_view spec, std::string_view why) {
  throw LayoutError(code, fmt::format("layout '{}': {}; expected a preset ({}) or a spec like "
                                      "ts=41,node=5+5,seq=12[,unit=1ms..1s][,epoch=UNIX_MS]",
                                      spec, why, [] {
                                        std::string names;
                                        for (const auto& p : kPresets) {
                                          if (!names.empty()) names += ", ";
                                          names += p.name;
                                        }
                                        return names;
                                      }()));
}

// A field given 0 bits: spelled out for gen (where leaving the key out means none) and
// caught in from_spec for the fields every layout has.
[[noreturn]] void zero_width(std::string_view layout, std::string_view field) {
  throw LayoutError(Code::zero_width_field,
                    fmt::format("layout '{}': the {} field has 0 bits; every field needs at "
                                "least one",
                                layout, field));
}

[[noreturn]] void malformed(std::string_view spec, std::string_view why) {
  fail(Code::malformed_spec, spec, why);
}

// `text` is the number; `value`, when given, the whole value of `key` it is part of (node=5+x
// when text is "x"), which is what a message echoes.
std::int64_t parse_int(std::string_view spec, std::string_view key, std::string_view text,
                       std::string_view value = {}) {
  if (value.empty()) value = text;
  std::int64_t n = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec == std::errc::result_out_of_range) {
    malformed(spec, fmt::format("{}={} is out of range", key, value));
  }
  if (ec != std::errc{} || ptr != end || text.empty()) {
    malformed(spec, fmt::format("{}={} is not a whole number", key, value));
  }
  return n;
}

int parse_bits(std::string_view spec, std::string_view key, std::string_view text,
               std::string_view value = {}) {
  if (value.empty()) value = text;
  const std::int64_t bits = parse_int(spec, key, text, value);
  if (bits < 0 || bits > 64) malformed(spec, fmt::format("{}={} is not a bit count", key, value));
  return static_cast<int>(bits);
}

[[noreturn]] void unit_out_of_range(std::string_view spec, std::string_view unit) {
  fail(Code::unit_out_of_range, spec,
       fmt::format("unit={} is outside 1ms to 1s (a whole number of ms or s)", unit));
}

// `Nms` or `Ns`; anything beyond 1 s is refused here, before it can overflow.
std::int64_t parse_unit(std::string_view spec, std::string_view text) {
  std::int64_t scale = 1;
  std::string_view digits = text;
  if (text.ends_with("ms")) {
    digits.remove_suffix(2);
  } else if (text.ends_with("s")) {
    digits.remove_suffix(1);
    scale = 1000;
  } else {
    malformed(spec, fmt::format("unit={} needs a suffix ms or s", text));
  }
  if (digits.empty() || digits.find_first_not_of("-0123456789") != std::string_view::npos) {
    malformed(spec, fmt::format("unit={} is not a whole number of ms or s", text));
  }
  const std::int64_t count = parse_int(spec, "unit", digits, text);
  if (count < 1 || count > kMaxUnitMs / scale) unit_out_of_range(spec, text);
  return count * scale;
}

std::vector<NodePart> parse_node(std::string_view spec, std::string_view value) {
  const std::size_t plus = value.find('+');
  if (plus == std::string_view::npos) return {{"node", parse_bits(spec, "node", value)}};
  const auto parts = std::ranges::count(value, '+') + 1;
  if (parts > 2) {
    malformed(spec,
              fmt::format("node={} has {} parts; a node field is BITS or BITS+BITS", value, parts));
  }
  return {{"node0", parse_bits(spec, "node", value.substr(0, plus), value)},
          {"node1", parse_bits(spec, "node", value.substr(plus + 1), value)}};
}

LayoutSpec parse_spec(std::string_view text) {
  LayoutSpec spec;
  std::vector<std::string_view> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) malformed(text, fmt::format("'{}' is not key=value", item));
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (std::ranges::find(seen, key) != seen.end()) {
      fail(Code::repeated_key, text, fmt::format("{} given twice", key));
    }
    seen.push_back(key);
    if (key == "ts") {
      spec.ts_bits = parse_bits(text, key, value);
    } else if (key == "seq") {
      spec.seq_bits = parse_bits(text, key, value);
    } else if (key == "node") {
      spec.node = parse_node(text, value);
    } else if (key == "unit") {
      spec.unit_ms = parse_unit(text, value);
    } else if (key == "epoch") {
      spec.epoch_unix_ms = parse_int(text, key, value);
    } else if (key == "spare") {
      const std::int64_t spare = parse_int(text, key, value);
      if (spare != 0 && spare != 1) malformed(text, "spare must be 0 or 1");
      spec.spare_bit = spare == 1;
    } else if (key == "gen") {
      spec.gen_bits = parse_bits(text, key, value);
      if (spec.gen_bits == 0) zero_width(text, "gen");
    } else if (key == "low") {
      if (value != "seq" && value != "node") malformed(text, "low must be seq or node");
      spec.node_in_low_bits = value == "node";
    } else {
      malformed(text, fmt::format("unknown key '{}'", key));
    }
  }
  for (std::string_view required : {"ts", "node", "seq"}) {
    if (std::ranges::find(seen, required) == seen.end()) {
      malformed(text, "ts, node and seq are all required");
    }
  }
  return spec;
}

std::string unit_text(std::int64_t unit_ms) {
  return unit_ms % 1000 == 0 ? fmt::format("{}s", unit_ms / 1000) : fmt::format("{}ms", unit_ms);
}

}  // namespace

std::span<const Layout::Preset> Layout::presets() { return kPresets; }

Layout Layout::parse(std::string_view text) { return parse(text, wall_clock()->wall_ms()); }

Layout Layout::parse(std::string_view text, std::int64_t now_unix_ms) {
  for (const auto& preset : kPresets) {
    if (text == preset.name) {
      LayoutSpec spec = parse_spec(preset.spec);
      spec.name = std::string(preset.name);
      spec.node = name_parts(preset.name, std::move(spec.node));
      return from_spec(std::move(spec), now_unix_ms);
    }
  }
  if (text.find('=') == std::string_view::npos) fail(Code::unknown_preset, text, "no such preset");
  return from_spec(parse_spec(text), now_unix_ms);
}

namespace {

// The time fields: a unit of 1 ms to 1 s, an epoch from 1970 to now, and a last tick whose
// Unix ms fits int64, so that tick × unit + epoch never overflows for any tick of the layout.
void check_time(const LayoutSpec& spec, std::int64_t now_unix_ms) {
  if (spec.unit_ms < 1 || spec.unit_ms > kMaxUnitMs) {
    throw LayoutError(Code::unit_out_of_range,
                      fmt::format("layout '{}': the time unit {} ms is outside 1ms to 1s",
                                  spec.name, spec.unit_ms));
  }
  if (spec.epoch_unix_ms < 0) {
    throw LayoutError(Code::negative_epoch,
                      fmt::format("layout '{}': epoch {} is before 1970; an epoch is Unix ms "
                                  "from 0 to now",
                                  spec.name, spec.epoch_unix_ms));
  }
  if (spec.epoch_unix_ms > now_unix_ms) {
    throw LayoutError(Code::epoch_in_future,
                      fmt::format("layout '{}': epoch {} ({}) is in the future", spec.name,
                                  spec.epoch_unix_ms, format_utc_ms(spec.epoch_unix_ms)));
  }
  // last = epoch + max_tick × unit + (unit - 1), every term >= 0; ts_bits <= 62 here
  // (too_many_bits came first), so max_tick fits int64.
  const std::int64_t max_tick = (std::int64_t{1} << spec.ts_bits) - 1;
  std::int64_t last = 0;
  if (__builtin_mul_overflow(max_tick, spec.unit_ms, &last) ||
      __builtin_add_overflow(last, spec.unit_ms - 1, &last) ||
      __builtin_add_overflow(last, spec.epoch_unix_ms, &last)) {
    throw LayoutError(Code::lifetime_beyond_int64,
                      fmt::format("layout '{}': {} ts bits of {} ms run beyond the last int64 "
                                  "Unix ms (year 292,278,994); use fewer ts bits or a shorter "
                                  "unit",
                                  spec.name, spec.ts_bits, spec.unit_ms));
  }
}

}  // namespace

Layout Layout::from_spec(LayoutSpec spec, std::int64_t now_unix_ms) {
  const auto zero = [&](std::string_view field) { zero_width(spec.name, field); };
  if (spec.ts_bits == 0) zero("ts");
  if (spec.seq_bits == 0) zero("seq");
  if (spec.node.empty()) zero("node");
  for (const auto& part : spec.node) {
    if (part.bits == 0) zero(part.name);
  }
  if (spec.gen_bits > kMaxGenBits) {
    throw LayoutError(Code::gen_too_wide,
                      fmt::format("layout '{}': gen={} is wider than a DCE clock sequence ({} "
                                  "bits); every gen bit halves the node space",
                                  spec.name, spec.gen_bits, kMaxGenBits));
  }
  int total = spec.ts_bits + spec.seq_bits + spec.gen_bits;
  for (const auto& part : spec.node) total += part.bits;
  const int room = spec.spare_bit ? 63 : 64;
  if (total > room) {
    throw LayoutError(
        Code::too_many_bits,
        fmt::format("layout '{}' needs {} bits but only {} fit in 64 bits{}", spec.name, total,
                    room, spec.spare_bit ? " beside the spare sign bit (spare=0 drops it)" : ""));
  }
  check_time(spec, now_unix_ms);
  return Layout(std::move(spec));
}

std::string Layout::spec() const {
  std::string node;
  for (const auto& part : spec_.node) {
    if (!node.empty()) node += '+';
    node += fmt::format("{}", part.bits);
  }
  const std::string gen = spec_.gen_bits > 0 ? fmt::format("gen={},", spec_.gen_bits) : "";
  return fmt::format("{}ts={},node={},{}seq={},unit={},{}epoch={}",
                     spec_.spare_bit ? "" : "spare=0,", spec_.ts_bits, node, gen,
                     spec_.seq_bits, unit_text(spec_.unit_ms),
                     spec_.node_in_low_bits ? "low=node," : "", spec_.epoch_unix_ms);
}

int Layout::node_bits() const {
  int bits = 0;
  for (const auto& part : spec_.node) bits += part.bits;
  return bits;
}

void Layout::check_node(std::uint64_t node) const {
  if (node > max_node()) {
    throw LayoutError(Code::node_out_of_range,
                      fmt::format("node id {} does not fit layout '{}': its {}-bit node field "
                                  "holds 0..{}",
                                  node, name(), node_bits(), max_node()));
  }
}

// The node area is gen:node, the generation in its top bits (see the header).
std::uint64_t Layout::encode(const LayoutFields& f) const {
  const auto tick = static_cast<std::uint64_t>(f.tick);
  const int nb = node_bits();
  const int ab = nb + spec_.gen_bits;  // the node area
  const int sb = spec_.seq_bits;
  const std::uint64_t area = f.gen << nb | f.node;
  if (spec_.node_in_low_bits) return tick << (sb + ab) | f.seq << ab | area;
  return tick << (ab + sb) | area << sb | f.seq;
}

Layout::Packer Layout::packer() const {
  const int nb = node_bits();
  const int ab = nb + spec_.gen_bits;
  const int sb = spec_.seq_bits;
  if (spec_.node_in_low_bits) return {.tick_shift = sb + ab, .gen_shift = nb, .node_shift = 0,
                                      .seq_shift = ab};
  return {.tick_shift = ab + sb, .gen_shift = nb + sb, .node_shift = sb, .seq_shift = 0};
}

LayoutFields Layout::decode(std::uint64_t id) const {
  const int nb = node_bits();
  const int ab = nb + spec_.gen_bits;
  const int sb = spec_.seq_bits;
  LayoutFields f;
  std::uint64_t area = 0;
  if (spec_.node_in_low_bits) {
    area = id & mask(ab);
    f.seq = (id >> ab) & max_seq();
  } else {
    f.seq = id & max_seq();
    area = (id >> sb) & mask(ab);
  }
  f.node = area & max_node();
  f.gen = (area >> nb) & max_gen();
  // Bits above ts (the spare bit, if set) are not part of the tick: a decoder shows what
  // the layout means, and `encode(decode(id)) == id` holds for every ID the layout issues.
  f.tick = static_cast<std::int64_t>((id >> (ab + sb)) & mask(spec_.ts_bits));
  return f;
}

std::vector<std::uint64_t> Layout::split_node(std::uint64_t node) const {
  std::vector<std::uint64_t> parts(spec_.node.size());
  for (std::size_t i = spec_.node.size(); i-- > 0;) {
    parts[i] = node & mask(spec_.node[i].bits);
    node >>= spec_.node[i].bits;
  }
  return parts;
}

std::int64_t Layout::tick_of_unix_ms(std::int64_t unix_ms) const {
  std::int64_t since_epoch = 0;
  // Only a time ~292 million years before 1970 overflows: it is before the epoch all the same.
  if (__builtin_sub_overflow(unix_ms, spec_.epoch_unix_ms, &since_epoch)) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return Clock::floor_div(since_epoch, spec_.unit_ms);
}

std::int64_t Layout::unix_ms_of_tick(std::int64_t tick) const {
  // Cannot overflow for 0 <= tick <= max_tick(): from_spec checked the last tick.
  return spec_.epoch_unix_ms + tick * spec_.unit_ms;
}

std::optional<std::int64_t> Layout::checked_unix_ms_of_tick(std::int64_t tick) const {
  std::int64_t ms = 0;
  if (__builtin_mul_overflow(tick, spec_.unit_ms, &ms)) return std::nullopt;
  if (__builtin_add_overflow(ms, spec_.epoch_unix_ms, &ms)) return std::nullopt;
  return ms;
}

std::int64_t Layout::last_unix_ms() const {
  // Fits: from_spec refused every layout whose last ms does not (lifetime_beyond_int64), summed
  // in this order, every term >= 0; (max_tick + 1) × unit may itself be one past int64.
  return spec_.epoch_unix_ms + max_tick() * spec_.unit_ms + (spec_.unit_ms - 1);
}

double Layout::cap_per_second() const {
  return (static_cast<double>(max_seq()) + 1) * 1000.0 / static_cast<double>(spec_.unit_ms);
}

std::string format_utc_ms(std::int64_t unix_ms) {
  const std::int64_t secs = Clock::floor_div(unix_ms, 1000);
  const std::int64_t ms = unix_ms - secs * 1000;
  const time_t t = static_cast<time_t>(secs);
  tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return fmt::format("(unix ms {})", unix_ms);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ms);
}

}  // namespace idbench
