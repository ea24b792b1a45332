#include "chaos/interval.hpp"

#include <gtest/gtest.h>

namespace idbench::chaos {
namespace {

using V = std::vector<Interval>;

TEST(Merged, JoinsOverlappingAndTouchingAndDropsEmpty) {
  EXPECT_EQ(merged({{5, 9}, {0, 2}, {2, 3}, {8, 12}, {20, 20}}), (V{{0, 3}, {5, 12}}));
}

TEST(Subtract, CutsHolesAndEnds) {
  EXPECT_EQ(subtract({{0, 10}}, {{2, 4}, {8, 20}}), (V{{0, 2}, {4, 8}}));
  EXPECT_EQ(subtract({{0, 10}}, {{-5, 15}}), V{});
  EXPECT_EQ(subtract({{0, 10}, {20, 30}}, {{25, 26}}), (V{{0, 10}, {20, 25}, {26, 30}}));
  EXPECT_EQ(subtract({{0, 10}}, {}), (V{{0, 10}}));
}

TEST(Clipped, KeepsOnlyTheWindow) {
  EXPECT_EQ(clipped({{-5, 3}, {4, 6}, {9, 20}}, 0, 10), (V{{0, 3}, {4, 6}, {9, 10}}));
}

TEST(TotalAndLongest, CountOverlapsOnce) {
  const V v{{0, 10}, {5, 12}, {20, 23}};
  EXPECT_EQ(total_length(v), 15);
  EXPECT_EQ(longest(v), 12);
  EXPECT_EQ(longest({}), 0);
}

}  // namespace
}  // namespace idbench::chaos
