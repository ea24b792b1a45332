// uuid_format_test — the RFC 9562 fields of UUIDv4 and UUIDv7 as uuid_format builds them.
#include "generators/uuid_format.hpp"

#include <gtest/gtest.h>

namespace idbench {
namespace {

TEST(UuidFormat, V7CarriesItsMsVersionVariantAndCounterBits) {
  const Uuid u = uuid_format::v7(0x0123'4567'89AB, 0xFFF, ~std::uint64_t{0});
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.bytes[8] >> 6, 0b10);  // RFC 9562 variant
  EXPECT_EQ(u.v7_unix_ms(), 0x0123'4567'89ABu);
  const Id id = Id::from_uuid(u);
  EXPECT_EQ(id.hi & 0xFFF, 0xFFFu);                                         // rand_a
  EXPECT_EQ(id.lo & ~(std::uint64_t{0b11} << 62), ~std::uint64_t{0} >> 2);  // rand_b: 62 bits
}

TEST(UuidFormat, MakeOverwritesOnlyTheVersionAndVariantBits) {
  const Uuid u = uuid_format::make(~std::uint64_t{0}, ~std::uint64_t{0}, 4);
  EXPECT_EQ(u.version(), 4);
  EXPECT_EQ(u.bytes[8] >> 6, 0b10);
  const Id id = Id::from_uuid(u);
  EXPECT_EQ(id.hi, ~(std::uint64_t{0b1011} << 12));  // 1111 → 0100 in the version nibble
  EXPECT_EQ(id.lo, (~std::uint64_t{0} >> 2) | std::uint64_t{0b10} << 62);
}

TEST(UuidFormat, V7OrdersByMsFirst) {
  EXPECT_LT(Id::from_uuid(uuid_format::v7(1000, 0xFFF, ~std::uint64_t{0})),
            Id::from_uuid(uuid_format::v7(1001, 0, 0)));
}

TEST(UuidFormat, V7SpaceSpansAll48BitsOfMs) {
  const SequenceSpace space = uuid_format::v7_space(42);
  EXPECT_EQ(space.max_seq, 42u);
  EXPECT_EQ(space.max_tick, (std::int64_t{1} << 48) - 1);
  EXPECT_EQ(space.unit_ms, 1);
  EXPECT_EQ(space.epoch_unix_ms, 0);
  EXPECT_EQ(space.last_unix_ms, uuid_format::kMaxUnixMs);
}

}  // namespace
}  // namespace idbench
