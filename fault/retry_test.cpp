// retry_test.cpp — the one play-again rule: a result that proves something is played once; a
// spoiled one is played again and why is kept; one spoiled every time stops after the retries,
// says so, and each spoiled attempt is told once, the last marked.
#include "fault/retry.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace idbench::fault {
namespace {

// Plays return 1, 2, 3, ...; those up to `spoiled_up_to` are spoiled ("starved N").
struct Counter {
  int plays = 0;
  int spoiled_up_to = 0;
  int play() { return ++plays; }
  std::optional<std::string> spoiled(int n) const {
    if (n <= spoiled_up_to) return "starved " + std::to_string(n);
    return std::nullopt;
  }
};

TEST(PlayWhileSpoiled, AResultThatProvesSomethingIsPlayedOnce) {
  Counter c;
  const auto r =
      play_while_spoiled([&] { return c.play(); }, [&](int n) { return c.spoiled(n); }, 2);
  EXPECT_EQ(c.plays, 1);
  EXPECT_EQ(r.result, 1);
  EXPECT_TRUE(r.set_aside.empty());
  EXPECT_FALSE(r.spoiled);
}

TEST(PlayWhileSpoiled, ASpoiledResultIsPlayedAgainAndWhyIsKept) {
  Counter c{.plays = 0, .spoiled_up_to = 1};
  std::vector<std::string> told;
  const auto r = play_while_spoiled(
      [&] { return c.play(); }, [&](int n) { return c.spoiled(n); }, 2,
      [&](const std::string& why, int attempt, bool last) {
        told.push_back(why + " #" + std::to_string(attempt) + (last ? " last" : ""));
      });
  EXPECT_EQ(c.plays, 2);
  EXPECT_EQ(r.result, 2);
  EXPECT_EQ(r.set_aside, std::vector<std::string>{"starved 1"});
  EXPECT_FALSE(r.spoiled);
  EXPECT_EQ(told, std::vector<std::string>{"starved 1 #1"});
}

TEST(PlayWhileSpoiled, OneSpoiledEveryTimeStopsAfterTheRetriesAndSaysSo) {
  Counter c{.plays = 0, .spoiled_up_to = 100};
  std::vector<std::string> told;
  const auto r = play_while_spoiled(
      [&] { return c.play(); }, [&](int n) { return c.spoiled(n); }, 2,
      [&](const std::string& why, int attempt, bool last) {
        told.push_back(why + " #" + std::to_string(attempt) + (last ? " last" : ""));
      });
  EXPECT_EQ(c.plays, 3);
  EXPECT_EQ(r.result, 3);
  EXPECT_TRUE(r.spoiled);
  EXPECT_EQ(r.set_aside, (std::vector<std::string>{"starved 1", "starved 2", "starved 3"}));
  EXPECT_EQ(told, (std::vector<std::string>{"starved 1 #1", "starved 2 #2", "starved 3 #3 last"}));
}

}  // namespace
}  // namespace idbench::fault
