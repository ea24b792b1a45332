#include "generators/layout.hpp"

#include <gtest/gtest.h>

#include "generators/errors.hpp"

namespace idbench {
namespace {

constexpr std::int64_t kNow = 1'790'000'000'000;  // 2026-09, fixed so the tests never age

TEST(Layout, DiscordDecodesItsPublishedExample) {
  const Layout discord = Layout::parse("discord", kNow);
  const LayoutFields f = discord.decode(175928847299117063ULL);
  EXPECT_EQ(format_utc_ms(discord.unix_ms_of_tick(f.tick)), "2016-04-30T11:18:25.796Z");
  const auto parts = discord.split_node(f.node);
  EXPECT_EQ(parts[0], 1u);  // worker
  EXPECT_EQ(parts[1], 0u);  // process
  EXPECT_EQ(f.seq, 7u);
}

TEST(Layout, TwitterPacksAsTheOriginalCodeDoes) {
  const Layout twitter = Layout::parse("twitter", kNow);
  // ((ts - twepoch) << 22) | (dc << 17) | (worker << 12) | seq
  const std::uint64_t id = twitter.encode({1000, (3 << 5) | 7, 42});
  EXPECT_EQ(id, (1000ULL << 22) | (3ULL << 17) | (7ULL << 12) | 42);
  EXPECT_EQ(format_utc_ms(twitter.last_unix_ms()).substr(0, 10), "2080-07-10");
  EXPECT_DOUBLE_EQ(twitter.cap_per_second(), 4'096'000);
}

TEST(Layout, SonyflakeKeepsTheMachineInTheLowBits) {
  const Layout sony = Layout::parse("sonyflake", kNow);
  const std::uint64_t id = sony.encode({5, 0xBEEF, 3});
  EXPECT_EQ(id & 0xFFFF, 0xBEEFu);
  EXPECT_EQ((id >> 16) & 0xFF, 3u);
  EXPECT_EQ(id >> 24, 5u);
  EXPECT_EQ(sony.unit_ms(), 10);
  EXPECT_DOUBLE_EQ(sony.cap_per_second(), 25'600);
}

TEST(Layout, BaiduCountsSecondsAndIsAlreadyExhausted) {
  const Layout baidu = Layout::parse("baidu", kNow);
  EXPECT_EQ(baidu.unit_ms(), 1000);
  // 2^28 s from 2016-05-20 is 8.5 years: the default layout ran out in 2024.
  EXPECT_EQ(format_utc_ms(baidu.last_unix_ms()).substr(0, 10), "2024-11-20");
}

TEST(Layout, EncodeDecodeAtTheLimits) {
  for (const auto& preset : Layout::presets()) {
    const Layout l = Layout::parse(preset.name, kNow);
    const LayoutFields max{l.max_tick(), l.max_node(), l.max_seq()};
    const LayoutFields back = l.decode(l.encode(max));
    EXPECT_EQ(back.tick, max.tick) << preset.name;
    EXPECT_EQ(back.node, max.node) << preset.name;
    EXPECT_EQ(back.seq, max.seq) << preset.name;
    if (l.spare_bit()) {
      EXPECT_LT(l.encode(max), 1ULL << 63) << preset.name;
    }
  }
}

TEST(Layout, SpecRoundTripsForEveryPreset) {
  for (const auto& preset : Layout::presets()) {
    const Layout l = Layout::parse(preset.name, kNow);
    EXPECT_EQ(Layout::parse(l.spec(), kNow).spec(), l.spec()) << preset.name;
  }
}

TEST(Layout, CustomSpecWithUnitAndEpoch) {
  const Layout l = Layout::parse("ts=39,node=8+8,seq=8,unit=10ms,epoch=1735689600000", kNow);
  EXPECT_EQ(l.ts_bits(), 39);
  EXPECT_EQ(l.node_bits(), 16);
  EXPECT_EQ(l.unit_ms(), 10);
  EXPECT_EQ(l.tick_of_unix_ms(1735689600000 + 25), 2);
  EXPECT_EQ(l.tick_of_unix_ms(1735689600000 - 1), -1);  // floors before the epoch
}

// One case per named error (Sonyflake v2's table-driven style).
struct BadLayout {
  const char* name;  // the test's name in ctest
  const char* text;
  LayoutError::Code code;
  const char* message_part;
};

class LayoutErrors : public ::testing::TestWithParam<BadLayout> {};

TEST_P(LayoutErrors, EachBrokenRuleHasItsOwnError) {
  const BadLayout& bad = GetParam();
  try {
    Layout::parse(bad.text, kNow);
    FAIL() << bad.text << " was accepted";
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.code(), bad.code) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad.message_part), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, LayoutErrors,
    ::testing::Values(
        BadLayout{"TooManyBitsWithSpare", "ts=50,node=10,seq=12", LayoutError::Code::too_many_bits,
                  "needs 72 bits"},
        BadLayout{"TooManyBitsWithoutSpare", "spare=0,ts=43,node=10,seq=12",
                  LayoutError::Code::too_many_bits, "65 bits"},
        BadLayout{"ZeroNodeBits", "ts=41,node=0,seq=12", LayoutError::Code::zero_width_field,
                  "0 bits"},
        BadLayout{"ZeroNodePart", "ts=41,node=5+0,seq=12", LayoutError::Code::zero_width_field,
                  "0 bits"},
        BadLayout{"ZeroTsBits", "ts=0,node=10,seq=12", LayoutError::Code::zero_width_field,
                  "ts field"},
        BadLayout{"ZeroUnit", "ts=41,node=10,seq=12,unit=0ms", LayoutError::Code::zero_unit,
                  "positive"},
        BadLayout{"EpochInFuture", "ts=41,node=10,seq=12,epoch=99999999999999",
                  LayoutError::Code::epoch_in_future, "in the future"},
        BadLayout{"MissingField", "ts=41,seq=12", LayoutError::Code::malformed_spec, "required"},
        BadLayout{"NonNumericBits", "ts=41,node=10,seq=x", LayoutError::Code::malformed_spec,
                  "whole number"},
        BadLayout{"UnknownKey", "ts=41,node=10,seq=12,colour=red",
                  LayoutError::Code::malformed_spec, "unknown key"},
        BadLayout{"UnitWithoutSuffix", "ts=41,node=10,seq=12,unit=5",
                  LayoutError::Code::malformed_spec, "suffix"},
        BadLayout{"UnknownPreset", "twiter", LayoutError::Code::malformed_spec, "no such preset"}),
    [](const ::testing::TestParamInfo<BadLayout>& info) { return std::string(info.param.name); });

TEST(Layout, SpareZeroAllowsAllSixtyFourBits) {
  EXPECT_NO_THROW(Layout::parse("spare=0,ts=42,node=10,seq=12", kNow));
}

TEST(Layout, NodeOutOfRangeIsNamed) {
  const Layout twitter = Layout::parse("twitter", kNow);
  EXPECT_NO_THROW(twitter.check_node(1023));
  try {
    twitter.check_node(5000);
    FAIL();
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.code(), LayoutError::Code::node_out_of_range);
    EXPECT_NE(std::string(e.what()).find("0..1023"), std::string::npos);
  }
}

}  // namespace
}  // namespace idbench
