// uuid_fuzz.cpp — fuzz target for Uuid::parse (generators/id.hpp), the 128-bit ID text.
//
// Properties: an accepted text is the canonical 8-4-4-4-12 form or 32 hex digits, either case,
// and means the UUID whose to_string() equals it lowercased; that text, its Id and to_text
// round-trip to the same UUID. A rejection is nullopt (Uuid::parse does not throw).
#include <cctype>

#include "fuzz/fuzz_support.hpp"
#include "generators/id.hpp"

namespace idbench::fuzz {
namespace {

// `text` lowercased with its hyphens removed: the 32 digits an accepted text must carry.
std::string digits_of(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  std::optional<Uuid> uuid;
  expect_typed("Uuid::parse", [&] { uuid = Uuid::parse(text); });
  if (!uuid) return;
  const std::string canonical = uuid->to_string();
  require(canonical.size() == 36 && (text.size() == 36 || text.size() == 32),
          "Uuid::parse accepted {} ({} bytes)", one_line(text), text.size());
  if (text.size() == 36) {
    for (const std::size_t i : {8, 13, 18, 23}) {
      require(text[i] == '-', "Uuid::parse accepted {} without a hyphen at {}", one_line(text), i);
    }
  }
  require(digits_of(text) == digits_of(canonical), "Uuid::parse read {} as {}", one_line(text),
          canonical);
  require(Uuid::parse(canonical) == uuid, "{} does not round-trip", canonical);
  const Id id = Id::from_uuid(*uuid);
  require(id.to_uuid() == *uuid && to_text(id, IdWidth::bits128) == canonical,
          "{} does not round-trip through Id", canonical);
}

}  // namespace idbench::fuzz
