// id.hpp — the value types an ID generator returns, and the one type the harness stores.
//
// A generator returns either a 64-bit integer (Snowflake family, counters) or a `Uuid`
// (128 bits, RFC 9562). The harness (CLI, checker, bench, locality, chaos) handles both
// through `Id`, a 128-bit value ordered like the generator's own ID: for a Uuid, by its
// bytes in network order (RFC 9562 §6.11: UUIDs sort as unsigned big-endian bytes); for a
// 64-bit ID, as an unsigned integer with `hi == 0`.
//
// Thread safety: plain values.
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace idbench {

// Width of the IDs a generator issues; decides text and binary formats.
enum class IdWidth { bits64, bits128 };

// 8 bytes in network (big-endian) order, as a number, and back: one load or store and a bswap.
inline std::uint64_t load_be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

// A UUID as 16 bytes in network (big-endian) order, the order RFC 9562 §4 draws them.
struct Uuid {
  std::array<std::uint8_t, 16> bytes{};

  // Canonical text form, RFC 9562 §4: 8-4-4-4-12 lowercase hex digits.
  std::string to_string() const;
  // Accepts the canonical form or 32 bare hex digits, either case; nullopt otherwise.
  static std::optional<Uuid> parse(std::string_view text);

  int version() const { return bytes[6] >> 4; }
  // The 48-bit Unix-millisecond timestamp of a v7 UUID (RFC 9562 §5.7).
  std::uint64_t v7_unix_ms() const;

  auto operator<=>(const Uuid&) const = default;
};

// The harness's ID: 128 bits compared as one unsigned number (hi first).
struct Id {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;

  static constexpr Id from_u64(std::uint64_t v) { return Id{0, v}; }
  // Inline: every UUID a generator returns to the harness passes here.
  static Id from_uuid(const Uuid& u) {
    return Id{load_be64(u.bytes.data()), load_be64(u.bytes.data() + 8)};
  }
  Uuid to_uuid() const {
    Uuid u;
    store_be64(u.bytes.data(), hi);
    store_be64(u.bytes.data() + 8, lo);
    return u;
  }

  auto operator<=>(const Id&) const = default;
};

// Text form used in every file idbench writes: decimal for 64-bit IDs, canonical for UUIDs.
std::string to_text(const Id& id, IdWidth width);

}  // namespace idbench
