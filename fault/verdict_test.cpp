// verdict_test.cpp — every outcome has its own word, and only kept, available and caught pass.
#include "fault/verdict.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace idbench::fault {
namespace {

TEST(FaultVerdict, EveryOutcomeHasItsOwnWord) {
  std::set<std::string_view> words;
  for (const Outcome o : kOutcomes) {
    const std::string_view w = name_of(o);
    EXPECT_NE(w, "unknown") << static_cast<int>(o);
    EXPECT_FALSE(w.empty()) << static_cast<int>(o);
    EXPECT_TRUE(words.insert(w).second) << "two outcomes are called " << w;
  }
  EXPECT_EQ(words.size(), kOutcomes.size());
}

// The words the results already hold: real_chaos.json's "verdict", chaos's summary lines and
// what the report scripts and the regression gate match.
TEST(FaultVerdict, TheWordsAreTheOnesTheResultsHold) {
  EXPECT_EQ(name_of(Outcome::kept), "kept");
  EXPECT_EQ(name_of(Outcome::available), "available");
  EXPECT_EQ(name_of(Outcome::caught), "caught");
  EXPECT_EQ(name_of(Outcome::broken), "BROKEN");
  EXPECT_EQ(name_of(Outcome::duplicates), "DUPLICATES");
  EXPECT_EQ(name_of(Outcome::unavailable), "unavailable");
  EXPECT_EQ(name_of(Outcome::no_evidence), "no evidence");
  EXPECT_EQ(name_of(Outcome::fault_not_applied), "fault not applied");
  EXPECT_EQ(name_of(Outcome::not_verified), "not verified");
  EXPECT_EQ(name_of(Outcome::machine_starved), "machine starved");
}

TEST(FaultVerdict, OnlyKeptAvailableAndCaughtPass) {
  for (const Outcome o : kOutcomes) {
    const bool want = o == Outcome::kept || o == Outcome::available || o == Outcome::caught;
    EXPECT_EQ((Verdict{.outcome = o, .evidence = "", .findings = {}}).passed(), want) << name_of(o);
  }
}

TEST(FaultVerdict, ADefaultVerdictDoesNotPass) { EXPECT_FALSE(Verdict{}.passed()); }

}  // namespace
}  // namespace idbench::fault
