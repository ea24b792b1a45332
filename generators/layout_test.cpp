#include "generators/layout.hpp"

#include <gtest/gtest.h>

#include <limits>

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
  // 2^28 s from 2016-05-20 00:00 China time is 8.5 years: the default layout ran out in 2024.
  EXPECT_EQ(format_utc_ms(baidu.last_unix_ms()), "2024-11-20T13:24:15.999Z");
}

// A UID as Baidu's DefaultUidGenerator builds it: BitsAllocator.allocate() is
// (deltaSeconds << (workerBits + seqBits)) | (workerId << seqBits) | sequence, with
// deltaSeconds counted from epochStr "2016-05-20" in China time (1463673600000 ms).
TEST(Layout, BaiduDecodesTheInstantItsOwnAllocateEncodes) {
  const Layout baidu = Layout::parse("baidu", kNow);
  constexpr std::uint64_t kEpochSeconds = 1463673600;
  constexpr std::uint64_t kWorkerBits = 22, kSeqBits = 13;
  const std::uint64_t delta_seconds = 1700000000 - kEpochSeconds;
  const std::uint64_t uid =
      (delta_seconds << (kWorkerBits + kSeqBits)) | (std::uint64_t{4321} << kSeqBits) | 17;
  const LayoutFields f = baidu.decode(uid);
  EXPECT_EQ(baidu.unix_ms_of_tick(f.tick), 1'700'000'000'000);
  EXPECT_EQ(format_utc_ms(baidu.unix_ms_of_tick(f.tick)), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(f.node, 4321u);
  EXPECT_EQ(f.seq, 17u);
}

// Sonyflake's toID(): elapsed << (seqBits + machineBits) | seq << machineBits | machine, in
// 10 ms units since its start time: 2014-09-01 in v1, 2025-01-01 in v2.
std::uint64_t sonyflake_id(std::int64_t unix_ms, std::int64_t start_unix_ms) {
  const auto elapsed = static_cast<std::uint64_t>((unix_ms - start_unix_ms) / 10);
  return elapsed << (8 + 16) | std::uint64_t{9} << 16 | 0xBEEF;
}

TEST(Layout, SonyflakeV1AndV2EachDecodeTheirOwnIds) {
  const Layout v2 = Layout::parse("sonyflake", kNow);
  const Layout v1 = Layout::parse("sonyflake-v1", kNow);
  constexpr std::int64_t kAt = 1'790'000'000'000;
  for (const auto& [layout, start] :
       {std::pair{&v2, 1'735'689'600'000}, {&v1, 1'409'529'600'000}}) {
    const LayoutFields f = layout->decode(sonyflake_id(kAt, start));
    EXPECT_EQ(layout->unix_ms_of_tick(f.tick), kAt) << layout->name();
    EXPECT_EQ(f.seq, 9u) << layout->name();
    EXPECT_EQ(f.node, 0xBEEFu) << layout->name();
  }
  // Each preset names its version where `idbench list` shows it.
  for (const auto& p : Layout::presets()) {
    if (p.name == "sonyflake") {
      EXPECT_NE(p.summary.find("v2"), std::string_view::npos);
    } else if (p.name == "sonyflake-v1") {
      EXPECT_NE(p.summary.find("v1"), std::string_view::npos);
    }
  }
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
        BadLayout{"ZeroGenBits", "ts=41,node=10,gen=0,seq=12", LayoutError::Code::zero_width_field,
                  "gen field"},
        BadLayout{"ZeroUnit", "ts=41,node=10,seq=12,unit=0ms", LayoutError::Code::unit_out_of_range,
                  "1ms to 1s"},
        BadLayout{"NegativeUnit", "ts=41,node=10,seq=12,unit=-5ms",
                  LayoutError::Code::unit_out_of_range, "1ms to 1s"},
        BadLayout{"UnitLongerThanASecond", "ts=41,node=10,seq=12,unit=2s",
                  LayoutError::Code::unit_out_of_range, "1ms to 1s"},
        BadLayout{"UnitOverflowingMs", "ts=41,node=10,seq=12,unit=99999999999999999s",
                  LayoutError::Code::unit_out_of_range, "1ms to 1s"},
        BadLayout{"NegativeEpoch", "ts=41,node=10,seq=12,epoch=-1",
                  LayoutError::Code::negative_epoch, "before 1970"},
        BadLayout{"MostNegativeEpoch", "ts=41,node=10,seq=12,epoch=-9223372036854775808",
                  LayoutError::Code::negative_epoch, "before 1970"},
        BadLayout{"RepeatedKey", "ts=41,node=10,seq=12,epoch=1288834974657,epoch=5",
                  LayoutError::Code::repeated_key, "epoch given twice"},
        BadLayout{"RepeatedBits", "ts=41,node=10,seq=12,ts=40", LayoutError::Code::repeated_key,
                  "ts given twice"},
        BadLayout{"LifetimeBeyondInt64", "spare=0,ts=62,node=1,seq=1,unit=1s",
                  LayoutError::Code::lifetime_beyond_int64, "beyond"},
        BadLayout{"LifetimeBeyondInt64At10ms", "spare=0,ts=60,node=2,seq=2,unit=10ms",
                  LayoutError::Code::lifetime_beyond_int64, "beyond"},
        BadLayout{"NumberOutOfRange", "ts=41,node=10,seq=12,epoch=99999999999999999999",
                  LayoutError::Code::malformed_spec, "out of range"},
        BadLayout{"EpochInFuture", "ts=41,node=10,seq=12,epoch=99999999999999",
                  LayoutError::Code::epoch_in_future, "in the future"},
        BadLayout{"MissingField", "ts=41,seq=12", LayoutError::Code::malformed_spec, "required"},
        BadLayout{"NonNumericBits", "ts=41,node=10,seq=x", LayoutError::Code::malformed_spec,
                  "whole number"},
        BadLayout{"UnknownKey", "ts=41,node=10,seq=12,colour=red",
                  LayoutError::Code::malformed_spec, "unknown key"},
        BadLayout{"UnitWithoutSuffix", "ts=41,node=10,seq=12,unit=5",
                  LayoutError::Code::malformed_spec, "suffix"},
        // These once echoed a part of the value ("unit=1u", "node=5+5") as if it were all.
        BadLayout{"UnitInMicroseconds", "ts=41,node=10,seq=12,unit=1us",
                  LayoutError::Code::malformed_spec, "unit=1us is not a whole number of ms or s"},
        BadLayout{"NodeOfThreeParts", "ts=41,node=5+5+5,seq=12", LayoutError::Code::malformed_spec,
                  "node=5+5+5 has 3 parts"},
        BadLayout{"NodePartNotANumber", "ts=41,node=5+x,seq=12", LayoutError::Code::malformed_spec,
                  "node=5+x is not a whole number"},
        BadLayout{"UnknownPreset", "twiter", LayoutError::Code::unknown_preset, "no such preset"},
        BadLayout{"GenWiderThanAClockSequence", "ts=41,node=2,gen=15,seq=6",
                  LayoutError::Code::gen_too_wide, "wider than a DCE clock sequence"},
        BadLayout{"GenBitsCountTowardsSixtyFour", "ts=41,node=10,gen=1,seq=12",
                  LayoutError::Code::too_many_bits, "needs 64 bits"}),
    [](const ::testing::TestParamInfo<BadLayout>& info) { return std::string(info.param.name); });

// The grammar: unit=Nms or Ns, 1 ms to 1 s; an epoch from 0 (1970) to now.
// gen=BITS is taken from the node field: Twitter's 10 machine bits as 2 + 8, the generation
// in the top bits of the node area, so the timestamp and sequence keep their places.
TEST(Layout, GenBitsSitAtTheTopOfTheNodeFieldAndHalveItPerBit) {
  const Layout twitter = Layout::parse("twitter", 1'800'000'000'000);
  const Layout gen2 = Layout::parse("ts=41,node=8,gen=2,seq=12,epoch=1288834974657", 1'800'000'000'000);
  EXPECT_EQ(gen2.max_gen(), 3u);
  EXPECT_EQ(gen2.max_node(), twitter.max_node() / 4);  // 1,024 nodes → 256
  EXPECT_EQ(gen2.used_bits(), 63);
  const std::uint64_t id = gen2.encode({.tick = 5, .node = 7, .seq = 9, .gen = 2});
  EXPECT_EQ(id, twitter.encode({.tick = 5, .node = 2 << 8 | 7, .seq = 9}));
  const LayoutFields f = gen2.decode(id);
  EXPECT_EQ(f.gen, 2u);
  EXPECT_EQ(f.node, 7u);
  EXPECT_EQ(f.seq, 9u);
  EXPECT_EQ(f.tick, 5);
  EXPECT_EQ(Layout::parse(gen2.spec(), 1'800'000'000'000), gen2);
  EXPECT_NE(gen2.spec().find("gen=2"), std::string::npos);
  // Node in the low bits (Sonyflake): the generation sits right above it.
  const Layout low = Layout::parse("ts=39,node=14,gen=2,seq=8,unit=10ms,low=node", 1'800'000'000'000);
  const std::uint64_t lid = low.encode({.tick = 3, .node = 5, .seq = 4, .gen = 1});
  EXPECT_EQ(lid, (std::uint64_t{3} << 24) | (std::uint64_t{4} << 16) | (std::uint64_t{1} << 14) | 5);
  EXPECT_EQ(low.decode(lid).gen, 1u);
  EXPECT_EQ(low.decode(lid).node, 5u);
}

TEST(Layout, AnyUnitFromOneMsToOneSecond) {
  EXPECT_EQ(Layout::parse("ts=41,node=10,seq=12,unit=7ms", kNow).unit_ms(), 7);
  EXPECT_EQ(Layout::parse("ts=41,node=10,seq=12,unit=1000ms", kNow).unit_ms(), 1000);
  EXPECT_EQ(Layout::parse("ts=41,node=10,seq=12,unit=1s", kNow).unit_ms(), 1000);
  EXPECT_EQ(Layout::parse("ts=41,node=10,seq=12,epoch=0", kNow).epoch_unix_ms(), 0);
  // The widest layout whose every tick is an int64 ms still parses.
  EXPECT_EQ(Layout::parse("spare=0,ts=62,node=1,seq=1", kNow).last_unix_ms(),
            (std::int64_t{1} << 62) - 1);
  // Its last ms is INT64_MAX at 2 ms a tick: (max_tick + 1) × unit is 2^63, one past int64,
  // though the last ms itself fits (found by the layout fuzz target, as UBSan's overflow).
  EXPECT_EQ(Layout::parse("spare=0,ts=62,node=1,seq=1,unit=2ms", kNow).last_unix_ms(),
            std::numeric_limits<std::int64_t>::max());
}

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

// A fuzz finding: a hostile spec is echoed in the message, escaped, on one line.
TEST(Layout, AHostileSpecIsEchoedOnOnePrintableLine) {
  for (const std::string& spec : {std::string("twitter\n"), std::string("\xab"),
                                 std::string("\x17\x16"), std::string("ts=41\r")}) {
    try {
      idbench::Layout::parse(spec);
      FAIL() << "accepted " << spec;
    } catch (const idbench::LayoutError& e) {
      const std::string what = e.what();
      for (const char c : what) {
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << what;
      }
    }
  }
  EXPECT_EQ(idbench::one_line("a\nb\x03\xff≥"), "a\\nb\\x03\\xff≥");
  EXPECT_EQ(idbench::one_line("m\xc2\x9f!"), "m\\xc2\\x9f!");  // a C1 control, though valid UTF-8
}
