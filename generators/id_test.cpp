#include "generators/id.hpp"

#include <gtest/gtest.h>

namespace idbench {
namespace {

TEST(Uuid, CanonicalTextRoundTrips) {
  const std::string text = "0190163d-8694-739b-aea5-966c26f8ad91";
  const auto u = Uuid::parse(text);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->to_string(), text);
  EXPECT_EQ(u->version(), 7);
  EXPECT_EQ(Uuid::parse("0190163D8694739BAEA5966C26F8AD91"), u);
}

TEST(Uuid, RejectsMalformedText) {
  EXPECT_FALSE(Uuid::parse("0190163d-8694-739b-aea5-966c26f8ad9"));
  EXPECT_FALSE(Uuid::parse("0190163d+8694-739b-aea5-966c26f8ad91"));
  EXPECT_FALSE(Uuid::parse("0190163g-8694-739b-aea5-966c26f8ad91"));
  EXPECT_FALSE(Uuid::parse(""));
}

TEST(Uuid, V7TimestampIsTheTop48Bits) {
  // RFC 9562 Appendix A.6's example: 2022-02-22 19:22:22 UTC = 0x017F22E279B0.
  const auto u = Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->v7_unix_ms(), 0x017F22E279B0u);
}

TEST(Id, OrdersUuidsAsTheirBytes) {
  const auto a = Uuid::parse("00000000-0000-7000-8000-0000000000ff");
  const auto b = Uuid::parse("00000000-0000-7000-8000-000000000100");
  ASSERT_TRUE(a && b);
  EXPECT_LT(*a, *b);
  EXPECT_LT(Id::from_uuid(*a), Id::from_uuid(*b));
  EXPECT_EQ(Id::from_uuid(*a).to_uuid(), *a);
}

TEST(Id, TextFormIsDecimalOrCanonical) {
  EXPECT_EQ(to_text(Id::from_u64(18446744073709551615ULL), IdWidth::bits64),
            "18446744073709551615");
  const auto u = Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  EXPECT_EQ(to_text(Id::from_uuid(*u), IdWidth::bits128), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
}

}  // namespace
}  // namespace idbench
