// id_text.cpp — the text form of one ID: width inference, parsing, and the reason a line is not an ID.
#include "check/id_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace idbench {
namespace {

// A UUID written without hyphens has exactly this many hex digits (RFC 9562 §4: 128 bits).
constexpr std::size_t kBareUuidDigits = 32;
constexpr std::size_t kCanonicalUuidChars = 36;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_decimal(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  // At most 20 digits (the header's rule): 70 zeros is not a spelling of 0.
  if (!is_decimal(s) || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string escape_byte(unsigned char c) {
  switch (c) {
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\n': return "\\n";
    default: break;
  }
  if (c < 0x20 || c >= 0x7f) return fmt::format("\\x{:02x}", c);
  return std::string(1, static_cast<char>(c));
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Problems any ID text can have, whatever its width; empty when there is none of them.
std::string explain_common(std::string_view text) {
  const std::string q = quote_text(text);
  if (text.empty()) return "'' is empty (expected one ID per line)";
  if (text.starts_with("\xEF\xBB\xBF")) {
    return q + " starts with a UTF-8 byte-order mark (save the file without one)";
  }
  if (text.front() == ' ' || text.front() == '\t') {
    return q + " starts with whitespace (expected the ID alone on its line)";
  }
  if (text.back() == ' ' || text.back() == '\t') {
    return q + " ends with whitespace (expected the ID alone on its line)";
  }
  const auto ctl = std::find_if(text.begin(), text.end(),
                                [](char c) { return is_control(static_cast<unsigned char>(c)); });
  if (ctl != text.end()) {
    return fmt::format("{} has the control character {} at column {}", q,
                       escape_byte(static_cast<unsigned char>(*ctl)), ctl - text.begin() + 1);
  }
  // Counted in bytes, a UTF-8 character (a full-width digit, 3 bytes) would make the length
  // wrong: named first, at its column, which is exact up to the first one.
  const auto wide = std::find_if(text.begin(), text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (wide != text.end()) {
    return fmt::format(
        "{} has a non-ASCII character at column {} (an ID is ASCII digits, hex "
        "digits and '-')",
        q, wide - text.begin() + 1);
  }
  if (text.front() == '-' && is_decimal(text.substr(1))) return q + " is negative (IDs are unsigned)";
  if (text.front() == '+') return q + " has a '+' sign (write the bare number)";
  return {};
}

std::string explain_bad_uuid(std::string_view text) {
  const std::string q = quote_text(text);
  if (text.size() != kCanonicalUuidChars && text.size() != kBareUuidDigits) {
    return fmt::format(
        "{} is not a UUID: {} characters, where a UUID has 36 (8-4-4-4-12 hex digits) or 32 "
        "hex digits",
        q, text.size());
  }
  const bool canonical = text.size() == kCanonicalUuidChars;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash_here = canonical && (i == 8 || i == 13 || i == 18 || i == 23);
    if (dash_here && text[i] != '-') {
      return fmt::format("{} is not a UUID: expected '-' at column {}", q, i + 1);
    }
    if (!dash_here && !is_hex(text[i])) {
      return fmt::format("{} is not a UUID: '{}' at column {} is not a hex digit", q,
                         escape_byte(static_cast<unsigned char>(text[i])), i + 1);
    }
  }
  return q + " is not a UUID";
}

std::string explain_bad_u64(std::string_view text) {
  const std::string q = quote_text(text);
  if (is_decimal(text) && text.size() > 20) {
    return q + " has more than 20 digits: larger than any decimal 64-bit ID";
  }
  if (is_decimal(text)) {
    return q + " is larger than the largest 64-bit ID, 18446744073709551615";
  }
  if (Uuid::parse(text)) return q + " is a UUID, not a decimal 64-bit ID";
  const auto bad = std::find_if(text.begin(), text.end(), [](char c) { return !is_digit(c); });
  return fmt::format("{} is not a decimal 64-bit ID: '{}' at column {} is not a digit", q,
                     escape_byte(static_cast<unsigned char>(*bad)), bad - text.begin() + 1);
}

}  // namespace

std::string quote_text(std::string_view text) {
  constexpr std::size_t kShown = 64;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    out += escape_byte(static_cast<unsigned char>(text[i]));
  }
  if (text.size() > kShown) out += "...";
  return out + "'";
}

WidthGuess infer_id_width(std::string_view text) {
  if (is_decimal(text) && text.size() == kBareUuidDigits) {
    return {std::nullopt,
            quote_text(text) +
                " is 32 decimal digits: too large for a 64-bit ID, but also a UUID written "
                "without hyphens (say --id-bits 128 if it is a UUID)"};
  }
  if (parse_u64(text)) return {IdWidth::bits64, {}};
  if (Uuid::parse(text)) return {IdWidth::bits128, {}};
  std::string problem = explain_common(text);
  if (problem.empty()) {
    // Neither form: explain as the form it is closer to (digits only, or anything else).
    const bool numeric = std::all_of(text.begin(), text.end(), is_digit);
    problem = numeric || text.size() < kBareUuidDigits ? explain_bad_u64(text)
                                                       : explain_bad_uuid(text);
  }
  return {std::nullopt, std::move(problem)};
}

std::optional<Id> parse_id_text(std::string_view text, IdWidth width) {
  if (width == IdWidth::bits64) {
    if (const auto v = parse_u64(text)) return Id::from_u64(*v);
    return std::nullopt;
  }
  if (const auto u = Uuid::parse(text)) return Id::from_uuid(*u);
  return std::nullopt;
}

std::string explain_bad_id(std::string_view text, IdWidth width) {
  std::string problem = explain_common(text);
  if (!problem.empty()) return problem;
  return width == IdWidth::bits64 ? explain_bad_u64(text) : explain_bad_uuid(text);
}

}  // namespace idbench
