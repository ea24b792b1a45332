// uuid_format_test — the RFC 9562 fields of UUIDv1, v4, v6 and v7, built and read back.
// them.
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

// RFC 9562 Appendix A.1 and A.5: the same instant, clock sequence and node as v1 and as v6.
constexpr const char* kRfcV1 = "C232AB00-9414-11EC-B3C8-9F6BDECED846";
constexpr const char* kRfcV6 = "1EC9414C-232A-6B00-B3C8-9F6BDECED846";
constexpr std::uint64_t kRfcTimestamp = 0x1EC9414C232AB00;  // 100 ns since 1582-10-15
constexpr std::int64_t kRfcUnixMs = 1'645'557'742'000;      // 2022-02-22T19:22:22Z

TEST(UuidFormat, ReadsTheRfcV1AndV6VectorsAlike) {
  for (const char* text : {kRfcV1, kRfcV6}) {
    SCOPED_TRACE(text);
    const auto fields = uuid_format::dce_fields(*Uuid::parse(text));
    ASSERT_TRUE(fields.has_value());
    EXPECT_EQ(fields->timestamp, kRfcTimestamp);
    EXPECT_EQ(fields->clock_seq, 0xB3C8u & 0x3FFF);  // the variant bits removed
    EXPECT_EQ(fields->node, 0x9F6BDECED846u);
    EXPECT_EQ(uuid_format::unix_ms_of_timestamp(fields->timestamp), kRfcUnixMs);
  }
}

TEST(UuidFormat, BuildsTheRfcV1AndV6Vectors) {
  const uuid_format::DceFields f{
      .timestamp = kRfcTimestamp, .clock_seq = 0x33C8, .node = 0x9F6BDECED846};
  EXPECT_EQ(uuid_format::v1(f), *Uuid::parse(kRfcV1));
  EXPECT_EQ(uuid_format::v6(f), *Uuid::parse(kRfcV6));
}

TEST(UuidFormat, DceFieldsAreOnlyInV1AndV6) {
  EXPECT_FALSE(uuid_format::dce_fields(uuid_format::v7(kRfcUnixMs, 1, 2)).has_value());
  EXPECT_FALSE(uuid_format::dce_fields(uuid_format::make(0, 0, 4)).has_value());
}

TEST(UuidFormat, V6SortsByTimeAndV1DoesNot) {
  // One tick apart across a time_low wrap: v6 orders them, v1's low-first layout reverses them.
  const uuid_format::DceFields a{.timestamp = 0x1EC9414FFFFFFFF, .clock_seq = 1, .node = 2};
  uuid_format::DceFields b = a;
  b.timestamp += 1;
  EXPECT_LT(uuid_format::v6(a), uuid_format::v6(b));
  EXPECT_GT(uuid_format::v1(a), uuid_format::v1(b));
}

TEST(UuidFormat, UnixMsOfTimestampFloorsBefore1970) {
  EXPECT_EQ(uuid_format::unix_ms_of_timestamp(uuid_format::kGregorianToUnix100ns), 0);
  EXPECT_EQ(uuid_format::unix_ms_of_timestamp(uuid_format::kGregorianToUnix100ns - 1), -1);
  EXPECT_EQ(uuid_format::unix_ms_of_timestamp(uuid_format::kGregorianToUnix100ns + 9'999), 0);
}

}  // namespace
}  // namespace idbench
