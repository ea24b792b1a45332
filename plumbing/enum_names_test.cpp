// enum_names_test.cpp — one table read both ways: value to word, word to value, and neither
// direction inventing an answer for something the table lacks.
#include "plumbing/enum_names.hpp"

#include <gtest/gtest.h>

namespace idbench::plumbing {
namespace {

enum class Colour { red, dark_blue, green };

// green is left out on purpose: a value the table lacks.
constexpr std::array<Named<Colour>, 2> kColourNames = {
    {{Colour::red, "red"}, {Colour::dark_blue, "dark-blue"}}};
static_assert(one_to_one(kColourNames));
static_assert(name_in(kColourNames, Colour::dark_blue) == "dark-blue");  // usable at compile time

TEST(EnumNames, AValueReadsAsItsWord) {
  EXPECT_EQ(name_in(kColourNames, Colour::red), "red");
  EXPECT_EQ(name_in(kColourNames, Colour::dark_blue), "dark-blue");
}

TEST(EnumNames, AValueTheTableLacksReadsAsTheFallback) {
  EXPECT_EQ(name_in(kColourNames, Colour::green), "?");
  EXPECT_EQ(name_in(kColourNames, Colour::green, "other"), "other");
  EXPECT_EQ(name_in(kColourNames, static_cast<Colour>(77)), "?");  // a number read from a file
}

TEST(EnumNames, AWordReadsAsItsValue) {
  EXPECT_EQ(value_in(kColourNames, "red"), Colour::red);
  EXPECT_EQ(value_in(kColourNames, "dark-blue"), Colour::dark_blue);
}

TEST(EnumNames, AWordTheTableLacksReadsAsNothing) {
  EXPECT_EQ(value_in(kColourNames, "green"), std::nullopt);
  EXPECT_EQ(value_in(kColourNames, ""), std::nullopt);
  EXPECT_EQ(value_in(kColourNames, "Red"), std::nullopt);  // words are exact
  EXPECT_EQ(value_in(kColourNames, "dark"), std::nullopt);  // no prefixes
}

TEST(EnumNames, ListsTheWordsInTableOrder) {
  EXPECT_EQ(names_in(kColourNames), (std::vector<std::string>{"red", "dark-blue"}));
}

TEST(EnumNames, OneToOneCatchesARepeatedValueOrWord) {
  constexpr std::array<Named<Colour>, 2> same_value = {
      {{Colour::red, "red"}, {Colour::red, "crimson"}}};
  constexpr std::array<Named<Colour>, 2> same_word = {
      {{Colour::red, "red"}, {Colour::green, "red"}}};
  static_assert(!one_to_one(same_value));
  static_assert(!one_to_one(same_word));
  EXPECT_FALSE(one_to_one(same_value));
  EXPECT_FALSE(one_to_one(same_word));
  EXPECT_TRUE(one_to_one(kColourNames));
}

}  // namespace
}  // namespace idbench::plumbing
