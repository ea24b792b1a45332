// Layout round trips: every preset and random valid spec strings pack their fields into an ID
// and unpack them unchanged, and every ID a layout can hold unpacks and packs back to itself.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "generators/layout.hpp"

namespace idbench {
namespace {

// A fixed "now" (2026-06-01) so the epoch-in-the-future rule never depends on the test
// machine's date; every preset epoch is before it.
constexpr std::int64_t kNowMs = 1'780'272'000'000;

std::uint64_t mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// Values in [0, max], with the limits drawn often: Sonyflake's tests pin max sequence and
// max machine id, where an off-by-one shift shows first.
rc::Gen<std::uint64_t> up_to(std::uint64_t max) {
  const auto any = max == std::numeric_limits<std::uint64_t>::max()
                       ? rc::gen::arbitrary<std::uint64_t>()
                       : rc::gen::inRange<std::uint64_t>(0, max + 1);
  return rc::gen::weightedOneOf<std::uint64_t>(
      {{1, rc::gen::element<std::uint64_t>(0, max)}, {4, any}});
}

LayoutFields fields_in(const Layout& layout) {
  return {static_cast<std::int64_t>(*up_to(static_cast<std::uint64_t>(layout.max_tick()))),
          *up_to(layout.max_node()), *up_to(layout.max_seq())};
}

int total_bits(const Layout& layout) {
  return layout.ts_bits() + layout.node_bits() + layout.seq_bits();
}

// A valid spec string with random widths: spare 0/1, one or two node parts, every field at
// least one bit and all of them within the 63 (or, without a spare bit, 64) bits there are.
rc::Gen<std::string> random_spec() {
  return rc::gen::exec([] {
    const bool spare = *rc::gen::arbitrary<bool>();
    const int node_parts = *rc::gen::inRange(1, 3);
    const int fields = 2 + node_parts;  // ts, node parts, seq
    const int room = spare ? 63 : 64;
    const int total = *rc::gen::inRange(fields, room + 1);
    // Widths are drawn one field at a time from what is left, in a random field order so no
    // field is always the one that gets the large remainder.
    std::array<int, 4> order{0, 1, 2, 3};
    const int shuffles = *rc::gen::inRange(0, 24);
    for (int i = 0; i < shuffles; ++i) std::next_permutation(order.begin(), order.begin() + fields);
    std::array<int, 4> width{};
    int left = total;
    for (int i = 0; i < fields; ++i) {
      const int still_needed = fields - 1 - i;
      width[order[i]] = i + 1 == fields ? left : *rc::gen::inRange(1, left - still_needed + 1);
      left -= width[order[i]];
    }
    const std::string node =
        node_parts == 1 ? fmt::format("{}", width[1]) : fmt::format("{}+{}", width[1], width[3]);
    const int seq = width[2];
    const std::string low = *rc::gen::element<std::string>("seq", "node");
    const std::int64_t epoch = *rc::gen::inRange<std::int64_t>(0, kNowMs + 1);
    // Only units whose last tick's Unix ms fits int64 (else lifetime_beyond_int64): 1 ms
    // always does, since ts has at most 62 bits and the epoch is before 2027.
    std::vector<std::string> units = {"1ms"};
    for (const auto& [text, ms] : {std::pair{"10ms", 10}, {"7ms", 7}, {"1s", 1000}}) {
      if (width[0] <= 62 - 10 || (std::int64_t{1} << width[0]) <=
                                     (std::numeric_limits<std::int64_t>::max() - epoch) / ms) {
        units.emplace_back(text);
      }
    }
    const std::string unit = *rc::gen::elementOf(units);
    return fmt::format("spare={},ts={},node={},seq={},unit={},low={},epoch={}", spare ? 1 : 0,
                       width[0], node, seq, unit, low, epoch);
  });
}

std::vector<Layout> every_preset() {
  std::vector<Layout> layouts;
  for (const auto& preset : Layout::presets())
    layouts.push_back(Layout::parse(preset.name, kNowMs));
  return layouts;
}

void check_fields_round_trip(const Layout& layout) {
  const LayoutFields in = fields_in(layout);
  const std::uint64_t id = layout.encode(in);
  // The generators' packer, shifts worked out once, packs the same ID.
  RC_ASSERT(layout.packer().pack(in.tick, in.node, in.seq, in.gen) == id);
  const LayoutFields out = layout.decode(id);
  RC_ASSERT(out.tick == in.tick);
  RC_ASSERT(out.node == in.node);
  RC_ASSERT(out.seq == in.seq);
  // The node parts (Twitter's datacenter + worker) are the node value cut at the part widths.
  std::uint64_t joined = 0;
  const auto parts = layout.split_node(out.node);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    RC_ASSERT(parts[i] <= mask(layout.node_parts()[i].bits));
    joined =
        (layout.node_parts()[i].bits >= 64 ? 0 : joined << layout.node_parts()[i].bits) | parts[i];
  }
  RC_ASSERT(joined == in.node);
  // A spare bit is never set: the ID stays a non-negative signed 64-bit value.
  if (layout.spare_bit()) RC_ASSERT(id >> 63 == 0u);
}

void check_id_round_trip(const Layout& layout) {
  // In range means within the layout's used bits: for a spare-bit layout the top bit is clear.
  const std::uint64_t id = *up_to(mask(total_bits(layout)));
  RC_ASSERT(layout.encode(layout.decode(id)) == id);
}

RC_GTEST_PROP(LayoutProperty, EncodeThenDecodeGivesBackEveryFieldOfEveryPreset, ()) {
  for (const Layout& layout : every_preset()) check_fields_round_trip(layout);
}

RC_GTEST_PROP(LayoutProperty, EncodeThenDecodeGivesBackEveryFieldOfRandomSpecs, ()) {
  const std::string spec = *random_spec();
  check_fields_round_trip(Layout::parse(spec, kNowMs));
}

// With gen bits (the clock-sequence generation, taken from the node field) too.
RC_GTEST_PROP(LayoutProperty, ThePackerPacksWhatEncodeDoesWithGenBits, ()) {
  const int gen_bits = *rc::gen::inRange(1, 5);
  const std::string low = *rc::gen::element<std::string>("seq", "node");
  const Layout layout = Layout::parse(
      fmt::format("ts=41,node={},gen={},seq=12,low={}", 10 - gen_bits, gen_bits, low), kNowMs);
  LayoutFields in = fields_in(layout);
  in.gen = *up_to(layout.max_gen());
  const std::uint64_t id = layout.encode(in);
  RC_ASSERT(layout.packer().pack(in.tick, in.node, in.seq, in.gen) == id);
  RC_ASSERT(layout.decode(id).gen == in.gen);
}

RC_GTEST_PROP(LayoutProperty, DecodeThenEncodeGivesBackEveryIdInRange, ()) {
  for (const Layout& layout : every_preset()) check_id_round_trip(layout);
  check_id_round_trip(Layout::parse(*random_spec(), kNowMs));
}

RC_GTEST_PROP(LayoutProperty, SpecStringParsesBackToTheSameLayout, ()) {
  const Layout layout = Layout::parse(*random_spec(), kNowMs);
  const Layout again = Layout::parse(layout.spec(), kNowMs);
  RC_ASSERT(again == layout);
  RC_ASSERT(again.ts_bits() == layout.ts_bits());
  RC_ASSERT(again.node_parts().size() == layout.node_parts().size());
  RC_ASSERT(again.unit_ms() == layout.unit_ms());
  RC_ASSERT(again.epoch_unix_ms() == layout.epoch_unix_ms());
  RC_ASSERT(again.node_in_low_bits() == layout.node_in_low_bits());
}

// A preset name or a random spec string: either way what Layout::parse takes.
rc::Gen<std::string> any_layout() {
  std::vector<std::string> names;
  for (const auto& preset : Layout::presets()) names.emplace_back(preset.name);
  return rc::gen::oneOf(rc::gen::elementOf(names), random_spec());
}

// The tick is the most significant field, so IDs sort by time first: the k-sorting every
// Snowflake-family layout exists for, whichever of seq and node sits in the low bits.
RC_GTEST_PROP(LayoutProperty, EncodedIdsSortByTickFirst, ()) {
  const Layout layout = Layout::parse(*any_layout(), kNowMs);
  const LayoutFields a = fields_in(layout);
  LayoutFields b = fields_in(layout);
  if (b.tick == a.tick) b.tick = a.tick < layout.max_tick() ? a.tick + 1 : a.tick - 1;
  RC_ASSERT((a.tick < b.tick) == (layout.encode(a) < layout.encode(b)));
}

}  // namespace
}  // namespace idbench
