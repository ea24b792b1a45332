// layout_fuzz.cpp — fuzz target for Layout::parse (generators/layout.hpp), the layout spec.
//
// Properties: a rejection is a LayoutError with one clean line. An accepted layout fits 64 bits,
// round-trips through spec(), has arithmetic that does not overflow (epoch + max tick × unit,
// the start of its last tick, fits int64 ms), encodes and decodes its extreme fields
// exactly, and a generator built on it issues increasing IDs without hanging.
#include <cmath>
#include <limits>
#include <optional>

#include "fuzz/fuzz_support.hpp"
#include "generators/clock.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"

namespace idbench::fuzz {
namespace {

// "Now" for the epoch-in-future rule: fixed, so a run repeats (2027-01-15T08:00:00Z).
constexpr std::int64_t kNowUnixMs = 1'800'000'000'000;

void check_round_trip(const Layout& layout) {
  const std::string spec = layout.spec();
  std::optional<Layout> back;
  const bool ok = expect_typed<LayoutError>("Layout::parse(spec())",
                                            [&] { back = Layout::parse(spec, kNowUnixMs); });
  require(ok, "an accepted layout's spec() is rejected: {}", one_line(spec));
  require(*back == layout && back->spec() == spec &&
              back->epoch_unix_ms() == layout.epoch_unix_ms() &&
              back->unit_ms() == layout.unit_ms() && back->node_bits() == layout.node_bits() &&
              back->node_in_low_bits() == layout.node_in_low_bits() &&
              back->spare_bit() == layout.spare_bit(),
          "spec() does not round-trip: {} gives {}", one_line(spec), one_line(back->spec()));
}

void check_arithmetic(const Layout& layout) {
  const int bits =
      (layout.spare_bit() ? 1 : 0) + layout.ts_bits() + layout.node_bits() + layout.seq_bits();
  require(bits <= 64 && layout.ts_bits() > 0 && layout.seq_bits() > 0 && layout.node_bits() > 0,
          "accepted layout {} has fields of {}+{}+{} bits (spare {})", one_line(layout.spec()),
          layout.ts_bits(), layout.node_bits(), layout.seq_bits(), layout.spare_bit());
  require(layout.unit_ms() > 0, "accepted layout {} has unit {} ms", one_line(layout.spec()),
          layout.unit_ms());
  // The last tick's Unix ms, epoch + max tick × unit, must be an int64: else converting the
  // tick of a valid ID to a time overflows (decode prints 1969, a generator hangs).
  std::int64_t span = 0, last_tick_ms = 0;
  const bool overflow = __builtin_mul_overflow(layout.max_tick(), layout.unit_ms(), &span) ||
                        __builtin_add_overflow(layout.epoch_unix_ms(), span, &last_tick_ms);
  require(!overflow, "accepted layout {}: epoch + max tick × unit overflows int64 ms",
          one_line(layout.spec()));
  // Its lifetime ends with the last tick: unit − 1 ms after it starts, or int64's end.
  std::int64_t end = 0;
  if (__builtin_add_overflow(last_tick_ms, layout.unit_ms() - 1, &end)) {
    end = std::numeric_limits<std::int64_t>::max();
  }
  require(layout.last_unix_ms() == end, "layout {}: last_unix_ms() {} but the arithmetic gives {}",
          one_line(layout.spec()), layout.last_unix_ms(), end);
  require(layout.unix_ms_of_tick(layout.max_tick()) == last_tick_ms &&
              layout.tick_of_unix_ms(last_tick_ms) == layout.max_tick() &&
              layout.tick_of_unix_ms(layout.epoch_unix_ms()) == 0,
          "layout {}: tick ↔ Unix ms conversions disagree at the lifetime's ends",
          one_line(layout.spec()));
  const double cap = layout.cap_per_second();
  require(std::isfinite(cap) && cap > 0, "layout {}: cap {} IDs/s", one_line(layout.spec()), cap);
  require(!format_utc_ms(layout.epoch_unix_ms()).empty() && !format_utc_ms(end).empty(),
          "layout {}: format_utc_ms printed nothing", one_line(layout.spec()));
}

void check_fields(const Layout& layout) {
  const LayoutFields top{
      .tick = layout.max_tick(), .node = layout.max_node(), .seq = layout.max_seq()};
  const LayoutFields back = layout.decode(layout.encode(top));
  require(back.tick == top.tick && back.node == top.node && back.seq == top.seq,
          "layout {}: the largest fields do not survive encode/decode", one_line(layout.spec()));
  require(layout.encode({}) == 0, "layout {}: encode of zero fields is not 0",
          one_line(layout.spec()));
  const LayoutFields all = layout.decode(~std::uint64_t{0});
  require(
      all.tick <= layout.max_tick() && all.node <= layout.max_node() && all.seq <= layout.max_seq(),
      "layout {}: decode of all ones gives fields beyond the layout", one_line(layout.spec()));
  const auto parts = layout.split_node(layout.max_node());
  require(parts.size() == layout.node_parts().size(), "layout {}: split_node gives {} parts",
          one_line(layout.spec()), parts.size());
  layout.check_node(layout.max_node());
  if (layout.max_node() < std::numeric_limits<std::uint64_t>::max()) {
    const bool accepted = expect_typed<LayoutError>(
        "Layout::check_node", [&] { layout.check_node(layout.max_node() + 1); });
    require(!accepted, "layout {}: check_node accepts max_node + 1", one_line(layout.spec()));
  }
}

// A generator on the layout, on a manual clock one tick into its lifetime: a few IDs (enough to
// roll the sequence over once when it is short), increasing, of the layout. A unit too long for
// the clock to reach the next tick shows up as a libFuzzer timeout.
void check_generator(const Layout& layout) {
  constexpr std::int64_t kClockMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;
  const std::int64_t start_ms =
      layout.unix_ms_of_tick(std::min<std::int64_t>(1, layout.max_tick()));
  if (start_ms < 0 || start_ms > kClockMaxMs - 10'000'000) return;  // beyond the Clock's range
  GeneratorOptions options;
  options.layout = layout;
  auto clock = std::make_shared<ManualClock>(start_ms * 1'000'000, 1'000'000);
  options.clock = clock;
  const auto generator = find_variant("mutex")->make(options);
  const std::uint64_t count = std::min<std::uint64_t>(layout.max_seq() + 2, 64);
  std::uint64_t last = 0;
  expect_typed<ClockError>("mutex generator", [&] {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t id = generator->next().lo;
      require(i == 0 || id > last, "layout {}: ID {} after {}", one_line(layout.spec()), id, last);
      require(layout.decode(id).tick <= layout.max_tick(), "layout {}: ID {} beyond the layout",
              one_line(layout.spec()), id);
      last = id;
    }
  });
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  std::optional<Layout> layout;
  if (!expect_typed<LayoutError>("Layout::parse",
                                 [&] { layout = Layout::parse(text, kNowUnixMs); })) {
    return;
  }
  check_round_trip(*layout);
  check_arithmetic(*layout);
  check_fields(*layout);
  check_generator(*layout);
}

}  // namespace idbench::fuzz
