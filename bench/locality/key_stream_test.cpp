// Streams of keys: every variant, writers and arrival, bounds, layout start times, key files.
#include "bench/locality/key_stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::locality {
namespace {

const Variant* first_with(bool uses_layout, IdWidth width) {
  for (const auto& v : variants()) {
    if (v.uses_layout == uses_layout && v.width == width && v.time_based) return &v;
  }
  return nullptr;
}

TEST(KeyStream, EveryVariantGivesTheRowsAskedForWithoutDuplicates) {
  for (const auto& v : variants()) {
    StreamSpec s;
    s.variant = std::string(v.name);
    s.rows = 20'000;
    s.writers = 4;
    s.rate = 50;
    const KeyStream k = build_stream(s);
    ASSERT_EQ(k.keys.size(), 20'000u) << v.name;
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    for (const auto& id : k.keys) seen.insert({id.hi, id.lo});
    EXPECT_EQ(seen.size(), k.keys.size()) << v.name;
  }
}

TEST(KeyStream, SnowflakeWritersUseTheirOwnNodeIdsAndRoundRobinWithinATick) {
  const Variant* v = first_with(true, IdWidth::bits64);
  ASSERT_NE(v, nullptr);
  StreamSpec s;
  s.variant = std::string(v->name);
  s.rows = 80;
  s.writers = 8;
  s.rate = 40;
  const KeyStream k = build_stream(s);
  // twitter: node in bits 12..21. Round-robin: writer i issues the i-th ID of each round.
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ((k.keys[i].lo >> 12) & 1023, i);
  EXPECT_DOUBLE_EQ(k.achieved_rate, 40.0);
}

TEST(KeyStream, ADescribedVariantIsBuiltFromItsDescriptionOnePerWriterWhenTimeBased) {
  // What `--exec` passes: a Variant not in the registry; `variant` is only its label.
  Variant described;
  described.name = "exec";
  described.time_based = true;
  described.make = [](const GeneratorOptions& opts) {
    struct NodeTimesCount {
      using id_type = std::uint64_t;
      explicit NodeTimesCount(const GeneratorOptions& o) : node(o.node) {}
      std::uint64_t next() { return node * 1000 + ++count; }
      std::string format() const { return "node*1000+count"; }
      std::uint64_t node, count = 0;
    };
    return std::unique_ptr<Generator>(std::make_unique<ErasedGenerator<NodeTimesCount>>(opts));
  };
  StreamSpec s;
  s.variant = "exec 'prog'";
  s.described = described;
  s.rows = 6;
  s.writers = 2;
  s.rate = 2;
  const KeyStream k = build_stream(s);
  EXPECT_EQ(k.keys, (std::vector<Id>{Id::from_u64(1), Id::from_u64(1001), Id::from_u64(2),
                                     Id::from_u64(1002), Id::from_u64(3), Id::from_u64(1003)}));
  EXPECT_NE(k.description.find("exec 'prog'"), std::string::npos) << k.description;
}

TEST(KeyStream, RandomArrivalIsSeededAndReproducible) {
  const Variant* v = first_with(true, IdWidth::bits64);
  StreamSpec s;
  s.variant = std::string(v->name);
  s.rows = 4000;
  s.writers = 8;
  s.rate = 40;
  s.arrival = Arrival::random;
  EXPECT_EQ(build_stream(s).keys, build_stream(s).keys);
  s.seed = 2;
  auto other = build_stream(s).keys;
  s.seed = 1;
  EXPECT_NE(build_stream(s).keys, other);
}

TEST(KeyStream, ARateAboveTheLayoutCapStillTerminatesAndReportsTheAchievedRate) {
  const Variant* v = first_with(true, IdWidth::bits64);
  StreamSpec s;
  s.variant = std::string(v->name);
  s.layout = "sonyflake";  // 256 IDs per 10 ms per node
  s.rows = 5000;
  s.rate = 100;
  const KeyStream k = build_stream(s);
  EXPECT_EQ(k.keys.size(), 5000u);
  EXPECT_LT(k.achieved_rate, 30.0);
}

// Poisson arrival: seeded exponential gaps, so the same seed gives the same stream, another
// seed another; the gaps vary and average 1 / rate; writers take turns.
TEST(KeyStream, PoissonArrivalIsSeededJitteredAndKeepsTheMeanRate) {
  StreamSpec s;
  s.variant = std::string(first_with(true, IdWidth::bits64)->name);
  s.rows = 4000;
  s.writers = 4;
  s.rate = 0.1;  // mean gap 10 ms
  s.arrival = Arrival::poisson;
  const KeyStream k = build_stream(s);
  EXPECT_EQ(build_stream(s).keys, k.keys);
  s.seed = 2;
  EXPECT_NE(build_stream(s).keys, k.keys);
  std::set<std::uint64_t> gaps;
  for (std::size_t i = 0; i < k.keys.size(); ++i) {
    EXPECT_EQ((k.keys[i].lo >> 12) & 1023, i % 4) << i;  // twitter: node in bits 12..21
    if (i > 0) gaps.insert((k.keys[i].lo >> 22) - (k.keys[i - 1].lo >> 22));
  }
  EXPECT_GT(gaps.size(), 20u);
  EXPECT_NEAR(k.achieved_rate, 0.1, 0.01);  // 4,000 gaps: the mean is within ~2 % (1 sigma)
  EXPECT_NE(k.description.find("poisson"), std::string::npos) << k.description;
}

TEST(KeyStream, FileOfDecimalsAndOfUuids) {
  const plumbing::TempDir tmp("idbench-key-stream-test");
  const std::string dec = tmp.path() + "/dec.txt";
  std::ofstream(dec) << "3\n1\n2\n";
  StreamSpec s;
  s.keys_file = dec;
  auto k = build_stream(s);
  EXPECT_EQ(k.width, IdWidth::bits64);
  EXPECT_EQ(k.keys.size(), 3u);
  const std::string uu = tmp.path() + "/uu.txt";
  std::ofstream(uu) << "0190a0e0-0000-7000-8000-000000000001\n0190a0e0000070008000000000000002\n";
  s.keys_file = uu;
  k = build_stream(s);
  EXPECT_EQ(k.width, IdWidth::bits128);
  EXPECT_LT(k.keys[0], k.keys[1]);
}

TEST(KeyStream, MalformedLineNamesItsNumber) {
  const plumbing::TempDir tmp("idbench-key-stream-test");
  const std::string bad = tmp.path() + "/bad.txt";
  std::ofstream(bad) << "1\nabc\n";
  StreamSpec s;
  s.keys_file = bad;
  try {
    build_stream(s);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
}

std::string message_of(const StreamSpec& s) {
  try {
    build_stream(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

StreamSpec layout_stream(const std::string& layout, std::uint64_t rows) {
  StreamSpec s;
  s.variant = std::string(first_with(true, IdWidth::bits64)->name);
  s.layout = layout;
  s.rows = rows;
  return s;
}

// These once aborted in vector::reserve / bad_alloc.
TEST(KeyStream, HugeRowsAndRatesAreRefusedWithTheirBound) {
  StreamSpec s = layout_stream("twitter", 18446744073709551615ull);
  EXPECT_NE(message_of(s).find("--rows must be at most 100000000"), std::string::npos)
      << message_of(s);
  s.rows = 10'000'000'000ull;
  EXPECT_NE(message_of(s).find("--rows must be at most"), std::string::npos) << message_of(s);
  s.rows = 100;
  s.rate = 18446744073709551615.0;
  EXPECT_NE(message_of(s).find("--rate must be 1e-06 … 1e+07"), std::string::npos)
      << message_of(s);
  s.synthetic = Synthetic::sequential;
  s.variant.clear();
  s.rate = 50;
  s.rows = 18446744073709551615ull;
  EXPECT_NE(message_of(s).find("--rows must be at most"), std::string::npos) << message_of(s);
}

// Zero rows once printed a 309-digit range.
TEST(KeyStream, ZeroRowsSayAtLeastOne) {
  StreamSpec s = layout_stream("twitter", 0);
  EXPECT_EQ(message_of(s), "--rows must be ≥ 1");
}

// The rate may be below 1 ID per ms; every value outside its range, and NaN,
// is refused with one line naming the range.
TEST(KeyStream, RatesOutsideTheirRangeAreRefusedWithTheRange) {
  StreamSpec s = layout_stream("twitter", 10);
  for (const double bad : {0.0, -1.0, -0.01, 0.000'000'9, 10'000'001.0, std::nan(""),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()}) {
    s.rate = bad;
    const std::string m = message_of(s);
    EXPECT_EQ(m.rfind("--rate must be 1e-06 … 1e+07 IDs per simulated ms (0.01 = 10 IDs/s), not ",
                      0),
              0u)
        << bad << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  for (const double good : {0.000'001, 0.01, 1.0, 2.5, 10'000'000.0}) {
    s.rate = good;
    EXPECT_EQ(message_of(s), "no error") << good;
  }
}

TEST(KeyStream, ASpanBeyondAHundredYearsOfSimulatedTimeIsRefused) {
  StreamSpec s = layout_stream("twitter", 4'000'000);
  s.rate = 0.000'001;  // 4e12 ms: 127 years
  EXPECT_EQ(message_of(s),
            "--rows / --rate spans 127 years of simulated time; at most 100: use a higher "
            "--rate or fewer --rows");
}

// At 0.01 IDs per ms one ID arrives every 100 simulated ms, and writers still take turns.
TEST(KeyStream, AFractionalRateSpreadsIdsInTimeAndWritersTakeTurns) {
  StreamSpec s = layout_stream("twitter", 8);
  s.writers = 4;
  s.rate = 0.01;
  const KeyStream k = build_stream(s);
  ASSERT_EQ(k.keys.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ((k.keys[i].lo >> 12) & 1023, i % 4) << i;  // twitter: node in bits 12..21
    if (i > 0) {
      EXPECT_EQ((k.keys[i].lo >> 22) - (k.keys[i - 1].lo >> 22), 100u) << i;
    }
  }
  EXPECT_EQ(k.simulated_ms, 701u);
  EXPECT_NE(k.description.find("0.01/ms"), std::string::npos) << k.description;
}

// A fractional rate above 1: 2.5 per ms is 3, 2, 3, 2 … IDs in successive ms.
TEST(KeyStream, AFractionalRateAboveOneAlternatesTheCountPerMs) {
  StreamSpec s = layout_stream("twitter", 10);
  s.rate = 2.5;
  const KeyStream k = build_stream(s);
  std::vector<std::uint64_t> ms;
  for (const Id& id : k.keys) ms.push_back((id.lo >> 22) - (k.keys[0].lo >> 22));
  EXPECT_EQ(ms, (std::vector<std::uint64_t>{0, 0, 0, 1, 1, 2, 2, 2, 3, 3}));
  EXPECT_DOUBLE_EQ(k.achieved_rate, 2.5);
}

// The stream once started 2025-06-01, before `wide`'s epoch (2026-01-01).
TEST(KeyStream, ALayoutWhoseEpochIsLaterStartsAtItsEpoch) {
  const Layout wide = Layout::parse("wide");
  ASSERT_GT(wide.epoch_unix_ms(), kDefaultStartUnixMs);
  EXPECT_EQ(stream_start_unix_ms(wide, kDefaultStartUnixMs), wide.epoch_unix_ms());
  const KeyStream k = build_stream(layout_stream("wide", 1000));
  ASSERT_EQ(k.keys.size(), 1000u);
  EXPECT_EQ(wide.decode(k.keys.front().lo).tick, 0);
}

TEST(KeyStream, ALayoutThatHoldsTheDefaultStartKeepsIt) {
  for (const char* name : {"twitter", "sonyflake", "discord"}) {
    EXPECT_EQ(stream_start_unix_ms(Layout::parse(name), kDefaultStartUnixMs), kDefaultStartUnixMs)
        << name;
  }
}

TEST(KeyStream, ALayoutWhoseLifetimeEndedIsARefusal) {
  StreamSpec s = layout_stream("baidu", 1000);
  EXPECT_THROW(build_stream(s), EpochExhausted);
}

// A directory was once reported as "no keys".
TEST(KeyStream, AKeysDirectoryIsNamedAsSuch) {
  StreamSpec s;
  s.keys_file = ::testing::TempDir();
  EXPECT_NE(message_of(s).find("is a directory"), std::string::npos) << message_of(s);
}

TEST(KeyStream, ABinaryLineIsShownEscapedOnOneLine) {
  const plumbing::TempDir tmp("idbench-key-stream-test");
  const std::string bad = tmp.path() + "/binary.txt";
  std::ofstream(bad) << "12\n\x1b[2J\x01\xff" << std::string(200, 'x') << "\n";
  StreamSpec s;
  s.keys_file = bad;
  const std::string m = message_of(s);
  EXPECT_NE(m.find(bad + ":2: "), std::string::npos) << m;
  EXPECT_NE(m.find("\\x1b[2J\\x01\\xff"), std::string::npos) << m;
  EXPECT_LT(m.size(), bad.size() + 100) << m;
  for (const char c : m) EXPECT_TRUE(c >= 0x20 || c < 0) << m;
}

// Node-major: the node field above the timestamp, every field kept.
TEST(KeyStream, NodeMajorPutsTheNodeAboveTheTimestampAndKeepsEveryField) {
  const Layout twitter = Layout::parse("twitter");
  const std::uint64_t id = twitter.encode({.tick = 5, .node = 3, .seq = 7});
  EXPECT_EQ(to_node_major(twitter, id), (std::uint64_t{3} << 53) | (5u << 12) | 7u);
  StreamSpec s;
  s.variant = "mutex";
  s.writers = 8;
  s.rate = 40;
  s.rows = 4000;
  StreamSpec n = s;
  n.node_major = true;
  const KeyStream tm = build_stream(s), nm = build_stream(n);
  ASSERT_EQ(tm.keys.size(), nm.keys.size());
  for (std::size_t i = 0; i < tm.keys.size(); ++i) {
    EXPECT_EQ(nm.keys[i].lo, to_node_major(twitter, tm.keys[i].lo));
  }
  // Each writer's keys ascend on their own, and writer w's all sort below writer w + 1's.
  EXPECT_LT(nm.keys[0].lo, nm.keys[1].lo);
  EXPECT_GT(nm.keys[1].lo >> 53, nm.keys[0].lo >> 53);
  n.variant = "uuidv4";
  EXPECT_THROW(build_stream(n), Error);
}

}  // namespace
}  // namespace idbench::locality
