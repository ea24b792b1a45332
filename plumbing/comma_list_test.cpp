// comma_list_test.cpp — split_commas keeps every word, empty ones too.
#include "plumbing/comma_list.hpp"

#include <gtest/gtest.h>

namespace idbench::plumbing {
namespace {

using Words = std::vector<std::string>;

TEST(SplitCommas, SplitsAtEveryComma) {
  EXPECT_EQ(split_commas("a,bc,d"), (Words{"a", "bc", "d"}));
  EXPECT_EQ(split_commas("one"), (Words{"one"}));
}

TEST(SplitCommas, KeepsEmptyWordsSoTheCallerCanNameThem) {
  EXPECT_EQ(split_commas(""), (Words{""}));
  EXPECT_EQ(split_commas("a,"), (Words{"a", ""}));
  EXPECT_EQ(split_commas(",a"), (Words{"", "a"}));
  EXPECT_EQ(split_commas("a,,b"), (Words{"a", "", "b"}));
}

}  // namespace
}  // namespace idbench::plumbing
