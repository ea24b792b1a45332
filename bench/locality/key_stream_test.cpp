#include "bench/locality/key_stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "generators/errors.hpp"
#include "generators/registry.hpp"

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

TEST(KeyStream, FileOfDecimalsAndOfUuids) {
  const std::string dec = ::testing::TempDir() + "/dec.txt";
  std::ofstream(dec) << "3\n1\n2\n";
  StreamSpec s;
  s.keys_file = dec;
  auto k = build_stream(s);
  EXPECT_EQ(k.width, IdWidth::bits64);
  EXPECT_EQ(k.keys.size(), 3u);
  const std::string uu = ::testing::TempDir() + "/uu.txt";
  std::ofstream(uu) << "0190a0e0-0000-7000-8000-000000000001\n0190a0e0000070008000000000000002\n";
  s.keys_file = uu;
  k = build_stream(s);
  EXPECT_EQ(k.width, IdWidth::bits128);
  EXPECT_LT(k.keys[0], k.keys[1]);
}

TEST(KeyStream, MalformedLineNamesItsNumber) {
  const std::string bad = ::testing::TempDir() + "/bad.txt";
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

}  // namespace
}  // namespace idbench::locality
