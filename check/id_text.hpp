// id_text.hpp — one ID written as text: its width, its value, and, when it is not an ID, what
// exactly is wrong with it.
//
//   infer_id_width("175928847299117063")          // bits64: a decimal of at most 20 digits
//   infer_id_width("0190a5c1-...")                 // bits128: canonical or 32 hex digits
//   infer_id_width("1234...(32 decimal digits)")   // ambiguous: too big for 64 bits, and also
//                                                  // a hyphen-less UUID; the caller must say
//   parse_id_text(" 1", IdWidth::bits64)           // nullopt; explain_bad_id says why:
//                                                  // "' 1' starts with whitespace ..."
//
// The rule, stated once: a decimal of 1..20 digits is a 64-bit ID; 36 characters in the
// 8-4-4-4-12 form, or 32 hex digits, are a UUID; 32 decimal digits are both, so they are
// refused until the width is given (`--id-bits 128`).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "generators/id.hpp"

namespace idbench {

struct WidthGuess {
  std::optional<IdWidth> width;  // nullopt: not an ID, or ambiguous
  std::string problem;           // why not, when width is nullopt (the text is quoted in it)
};

WidthGuess infer_id_width(std::string_view text);

// The ID, or nullopt when `text` is not exactly one ID of `width` (no spaces, no sign).
std::optional<Id> parse_id_text(std::string_view text, IdWidth width);

// Why parse_id_text(text, width) said no, as a phrase that quotes the text:
// "'-42' is negative (IDs are unsigned)".
std::string explain_bad_id(std::string_view text, IdWidth width);

// The text in single quotes, control bytes and non-ASCII escaped (\r, \t, \xef), cut at 64.
std::string quote_text(std::string_view text);

}  // namespace idbench
