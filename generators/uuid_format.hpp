// uuid_format.hpp — the RFC 9562 bit fields of UUIDv4 and UUIDv7, in one place.
//
// Both are built as two 64-bit halves (hi = bytes 0..7, lo = bytes 8..15, big-endian), which
// is how `Id` orders them.
//
//   v7 (§5.7): hi = unix_ts_ms:48 | ver:4 = 0b0111 | rand_a:12
//              lo = var:2 = 0b10  | rand_b:62
//   v4 (§5.4): hi = random:48     | ver:4 = 0b0100 | random:12
//              lo = var:2 = 0b10  | random:62
#pragma once

#include <cstdint>

#include "generators/id.hpp"
#include "generators/sequencer.hpp"

namespace idbench::uuid_format {

// 48 bits of Unix ms (§5.7) last until the year 10889.
inline constexpr std::int64_t kMaxUnixMs = (std::int64_t{1} << 48) - 1;

inline Uuid make(std::uint64_t hi_without_version, std::uint64_t lo_without_variant, int version) {
  const std::uint64_t hi =
      (hi_without_version & ~(std::uint64_t{0xF} << 12)) | std::uint64_t(version) << 12;
  const std::uint64_t lo = (lo_without_variant >> 2) | std::uint64_t{0b10} << 62;
  return Id{hi, lo}.to_uuid();
}

// The state space of a v7 generator: Unix ms as ticks, all 48 bits of them.
inline SequenceSpace v7_space(std::uint64_t max_seq) {
  SequenceSpace space;
  space.max_seq = max_seq;
  space.max_tick = kMaxUnixMs;
  space.last_unix_ms = kMaxUnixMs;
  space.format_name = "uuidv7";
  return space;
}

// v7 from its timestamp, the 12 bits of rand_a and the 62 bits of rand_b.
inline Uuid v7(std::uint64_t unix_ms, std::uint64_t rand_a12, std::uint64_t rand_b62) {
  return make(unix_ms << 16 | (rand_a12 & 0xFFF), rand_b62 << 2, 7);
}

}  // namespace idbench::uuid_format
