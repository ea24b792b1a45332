// decode_fuzz.cpp — fuzz target for what `idbench decode` does with its input
// (cli/decode_command.cpp): Layout::parse for --layout; for each ID its width, given (--id-bits)
// or inferred (infer_id_width), then parse_id_text, else explain_bad_id; a 64-bit ID decoded by
// the layout, a UUID by its version. The command is not a library function, so this target
// calls the same functions in the same order, for the inferred width and for both given ones.
//
// Input: `LAYOUT\nID`, or just `ID` with the twitter layout.
// Properties: every rejection (layout, width, ID) is one clean line; a 64-bit ID decodes to
// fields that encode back to it (less any bits above the layout), at a time inside the
// layout's lifetime that formats; a v7 UUID's time formats; a v1 or v6 UUID's time formats and
// its DCE fields (timestamp, clock sequence, node) build it back.
#include <optional>

#include "check/id_text.hpp"
#include "fuzz/fuzz_support.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/uuid_format.hpp"

namespace idbench::fuzz {
namespace {

constexpr std::int64_t kNowUnixMs = 1'800'000'000'000;  // as layout_fuzz: fixed, so runs repeat

void decode_u64(const Layout& layout, std::uint64_t id) {
  const LayoutFields f = layout.decode(id);
  const int used = layout.used_bits();
  const std::uint64_t field_bits = used >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << used) - 1;
  require(layout.encode(f) == (id & field_bits), "layout {}: {} does not re-encode",
          one_line(layout.spec()), id);
  const std::int64_t ms = layout.unix_ms_of_tick(f.tick);
  require(ms >= layout.epoch_unix_ms() && ms <= layout.last_unix_ms(),
          "layout {}: {} decodes to Unix ms {}, outside the lifetime", one_line(layout.spec()), id,
          ms);
  require(!format_utc_ms(ms).empty(), "no time for {}", ms);
  const auto parts = layout.split_node(f.node);
  require(parts.size() == layout.node_parts().size(), "split_node of {}", f.node);
}

// A v1 or v6 UUID with the RFC variant: its DCE fields build it back, bit for bit, and its time
// (any 60-bit timestamp, 1582 … 5236) formats.
void decode_dce(const Uuid& u) {
  const auto f = uuid_format::dce_fields(u);
  require(f.has_value(), "no DCE fields in v{} {}", u.version(), u.to_string());
  if ((u.bytes[8] >> 6) == 0b10) {
    const Uuid back = u.version() == 1 ? uuid_format::v1(*f) : uuid_format::v6(*f);
    require(back == u, "v{} {} rebuilds as {}", u.version(), u.to_string(), back.to_string());
  }
  const std::int64_t ms = uuid_format::unix_ms_of_timestamp(f->timestamp);
  require(!format_utc_ms(ms).empty(), "no time for v{} {} (Unix ms {})", u.version(), u.to_string(),
          ms);
}

void decode_uuid(const Uuid& u) {
  if (u.version() == 1 || u.version() == 6) return decode_dce(u);
  if (u.version() != 7) return;
  const auto ms = static_cast<std::int64_t>(u.v7_unix_ms());
  require(ms >= 0 && !format_utc_ms(ms).empty(), "no time for v7 {}", u.to_string());
}

}  // namespace

void fuzz_one(const Input& input) {
  std::string_view text(input.text);
  std::string_view layout_text = "twitter";
  if (const std::size_t nl = text.find('\n'); nl != std::string_view::npos) {
    layout_text = text.substr(0, nl);
    text.remove_prefix(nl + 1);
  }
  std::optional<Layout> layout;
  if (!expect_typed<LayoutError>("Layout::parse",
                                 [&] { layout = Layout::parse(layout_text, kNowUnixMs); })) {
    return;
  }
  const WidthGuess guess = infer_id_width(text);
  const std::string defect = guess.width ? std::string() : message_defect(guess.problem);
  require(defect.empty(), "decode: the width problem with {} is not one clean line ({}): {}",
          one_line(text), defect, one_line(guess.problem));
  for (const IdWidth width : {IdWidth::bits64, IdWidth::bits128}) {
    const auto id = parse_id_text(text, width);
    if (!id) {
      const std::string why = explain_bad_id(text, width);
      require(message_defect(why).empty(), "decode: explain_bad_id of {} gives {}", one_line(text),
              one_line(why));
    } else if (width == IdWidth::bits64) {
      decode_u64(*layout, id->lo);
    } else {
      decode_uuid(id->to_uuid());
    }
  }
  return;
}

}  // namespace idbench::fuzz
