// uuid_format.hpp — the RFC 9562 bit fields of UUIDv1, v4, v6 and v7, in one place.
//
// All are built as two 64-bit halves (hi = bytes 0..7, lo = bytes 8..15, big-endian), which
// is how `Id` orders them.
//
//   v7 (§5.7): hi = unix_ts_ms:48 | ver:4 = 0b0111 | rand_a:12
//              lo = var:2 = 0b10  | rand_b:62
//   v4 (§5.4): hi = random:48     | ver:4 = 0b0100 | random:12
//              lo = var:2 = 0b10  | random:62
//   v1 (§5.1): hi = time_low:32 | time_mid:16 | ver:4 = 0b0001 | time_high:12
//              lo = var:2 = 0b10 | clock_seq:14 | node:48
//   v6 (§5.6): hi = time_high:32 | time_mid:16 | ver:4 = 0b0110 | time_low:12
//              lo = as v1
//   v8 (§5.8, idbench's layout; custom_a and custom_b are free):
//              hi = unix_ts_ms:48 | ver:4 = 0b1000 | node:12 (its high bits)
//              lo = var:2 = 0b10  | node:4 (its low bits) | counter:26 | random:32
//   where the 60-bit timestamp (100 ns since 1582-10-15) is time_high|time_mid|time_low, high
//   to low. v1 puts its fastest-moving bits first, so v1 UUIDs do not sort by time; v6 is the
//   same fields high to low, so they do.
#pragma once

#include <cstdint>
#include <optional>

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

// The state space of a v7 (or v8) generator: Unix ms as ticks, all 48 bits of them.
inline SequenceSpace v7_space(std::uint64_t max_seq, const char* format_name = "uuidv7") {
  SequenceSpace space;
  space.max_seq = max_seq;
  space.max_tick = kMaxUnixMs;
  space.last_unix_ms = kMaxUnixMs;
  space.format_name = format_name;
  return space;
}

// v7 from its timestamp, the 12 bits of rand_a and the 62 bits of rand_b.
inline Uuid v7(std::uint64_t unix_ms, std::uint64_t rand_a12, std::uint64_t rand_b62) {
  return make(unix_ms << 16 | (rand_a12 & 0xFFF), rand_b62 << 2, 7);
}

// idbench's v8: a v7-like ms, then a node id, a counter and random bits (the widths above).
// The node makes two generators' IDs differ whatever their random bits; the counter, from 0
// in each ms, orders one generator's IDs; the random bits keep them hard to guess (§8).
struct V8Fields {
  std::uint64_t unix_ms = 0;  // 48 bits
  std::uint64_t node = 0;     // 16 bits
  std::uint64_t counter = 0;  // 26 bits
  std::uint64_t random = 0;   // 32 bits
};
inline constexpr int kV8NodeBits = 16;
inline constexpr int kV8CounterBits = 26;
inline constexpr std::uint64_t kV8MaxNode = (std::uint64_t{1} << kV8NodeBits) - 1;
inline constexpr std::uint64_t kV8MaxCounter = (std::uint64_t{1} << kV8CounterBits) - 1;

inline Uuid v8(const V8Fields& f) {
  const std::uint64_t node = f.node & kV8MaxNode;
  const std::uint64_t hi = (f.unix_ms & kMaxUnixMs) << 16 | node >> 4;
  const std::uint64_t lo62 =
      (node & 0xF) << 58 | (f.counter & kV8MaxCounter) << 32 | (f.random & 0xFFFF'FFFF);
  return make(hi, lo62 << 2, 8);
}

// The fields of a v8 UUID read as idbench's layout; nullopt for any other version. (Another
// program's v8 may mean something else by the same bits: §5.8 leaves them to it.)
inline std::optional<V8Fields> v8_fields(const Uuid& u) {
  if (u.version() != 8) return std::nullopt;
  const Id id = Id::from_uuid(u);
  return V8Fields{.unix_ms = id.hi >> 16,
                  .node = (id.hi & 0xFFF) << 4 | ((id.lo >> 58) & 0xF),
                  .counter = (id.lo >> 32) & kV8MaxCounter,
                  .random = id.lo & 0xFFFF'FFFF};
}

// The fields v1 and v6 share (the DCE fields).
struct DceFields {
  std::uint64_t timestamp = 0;  // 60 bits: 100 ns since 1582-10-15
  std::uint64_t clock_seq = 0;  // 14 bits
  std::uint64_t node = 0;       // 48 bits
};

// 100-ns intervals from 1582-10-15 (the Gregorian reform) to 1970-01-01 (RFC 9562 §5.1).
inline constexpr std::uint64_t kGregorianToUnix100ns = 0x01B21DD213814000ull;
inline constexpr std::uint64_t kMaxTimestamp = (std::uint64_t{1} << 60) - 1;

// The Unix ms of a DCE timestamp, floored (an instant before 1970 is in the ms that began
// before it).
inline std::int64_t unix_ms_of_timestamp(std::uint64_t timestamp) {
  const auto since_unix =
      static_cast<std::int64_t>(timestamp) - static_cast<std::int64_t>(kGregorianToUnix100ns);
  return since_unix >= 0 ? since_unix / 10'000 : -((-since_unix + 9'999) / 10'000);
}

inline constexpr std::uint64_t kMaxClockSeq = 0x3FFF;                   // 14 bits
inline constexpr std::uint64_t kNodeMask = 0xFFFF'FFFF'FFFF;            // 48 bits
inline constexpr std::uint64_t kMulticastBit = std::uint64_t{1} << 40;  // §6.10

// The state space of a v1/v6 generator: 60-bit ticks of 100 ns since 1582 (they last until
// 5236), one ID per tick (max_seq 0: a second call in the same 100 ns spins to the next; the
// clock is read in ns, so no counter in the low bits is needed), 2^14 clock sequences.
inline SequenceSpace dce_space() {
  SequenceSpace space;
  space.max_seq = 0;
  space.max_tick = static_cast<std::int64_t>(kMaxTimestamp);
  space.ns_per_tick = 100;
  space.ticks_at_unix_epoch = static_cast<std::int64_t>(kGregorianToUnix100ns);
  space.max_gen = kMaxClockSeq;
  space.last_unix_ms = unix_ms_of_timestamp(kMaxTimestamp);
  space.format_name = "uuidv1/v6";
  return space;
}

inline std::uint64_t dce_lo(const DceFields& f) {
  return (f.clock_seq & 0x3FFF) << 48 | (f.node & 0xFFFF'FFFF'FFFF);
}

inline Uuid v1(const DceFields& f) {
  const std::uint64_t t = f.timestamp & kMaxTimestamp;
  const std::uint64_t hi = (t & 0xFFFF'FFFF) << 32 | ((t >> 32) & 0xFFFF) << 16 | t >> 48;
  return make(hi, dce_lo(f) << 2, 1);
}

inline Uuid v6(const DceFields& f) {
  const std::uint64_t t = f.timestamp & kMaxTimestamp;
  return make((t >> 12) << 16 | (t & 0xFFF), dce_lo(f) << 2, 6);
}

// The DCE fields of a v1 or v6 UUID; nullopt for any other version.
inline std::optional<DceFields> dce_fields(const Uuid& u) {
  const Id id = Id::from_uuid(u);
  DceFields f{
      .timestamp = 0, .clock_seq = (id.lo >> 48) & 0x3FFF, .node = id.lo & 0xFFFF'FFFF'FFFF};
  switch (u.version()) {
    case 1:
      f.timestamp = (id.hi & 0xFFF) << 48 | ((id.hi >> 16) & 0xFFFF) << 32 | id.hi >> 32;
      return f;
    case 6:
      f.timestamp = (id.hi >> 16) << 12 | (id.hi & 0xFFF);
      return f;
    default:
      return std::nullopt;
  }
}

}  // namespace idbench::uuid_format
