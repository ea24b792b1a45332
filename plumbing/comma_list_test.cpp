// comma_list_test.cpp — split_commas keeps every word, empty ones too, and refuses a repeat.
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

// A repeat is a mistake the caller would otherwise misread: `real --system x,x` said
// "unknown system 'x'" about a system it knows.
TEST(SplitCommas, RefusesAWordListedTwiceNamingIt) {
  try {
    split_commas("python-uuid4,node-ulid,python-uuid4");
    FAIL() << "a repeat was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "'python-uuid4' is listed twice in 'python-uuid4,node-ulid,python-uuid4'");
  }
  EXPECT_EQ(split_commas("a,,b,"), (Words{"a", "", "b", ""}));  // empty words: the caller's
}

// An empty entry is named before a repeat: the caller's message says which list has it (the
// MariaDB adapter's "has an empty entry" for "sock,,sock" was lost to "listed twice", exit 1).
TEST(SplitCommas, AnEmptyEntryComesBeforeARepeat) {
  EXPECT_EQ(split_commas("a,,a"), (Words{"a", "", "a"}));
  EXPECT_EQ(split_commas(",a,a"), (Words{"", "a", "a"}));
}

}  // namespace
}  // namespace idbench::plumbing
