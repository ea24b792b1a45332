// policy_test — Policy's text form: every name, bounds, and one clear error per bad input.
#include "generators/policy.hpp"

#include <gtest/gtest.h>

#include "generators/errors.hpp"

namespace idbench {
namespace {

TEST(Policy, EveryCatalogNameParsesWithItsDefaultBound) {
  for (const auto& p : policy_catalog()) {
    const Policy policy = Policy::parse(p.name);
    EXPECT_EQ(policy.kind, p.kind) << p.name;
    EXPECT_EQ(policy.bound_ms, p.default_bound_ms) << p.name;
    EXPECT_EQ(policy, Policy::of(p.kind)) << p.name;
    EXPECT_EQ(policy.name(), p.name);
  }
}

TEST(Policy, ABoundRoundTripsThroughItsName) {
  const Policy wait = Policy::parse("bounded-wait:10");
  EXPECT_EQ(wait.kind, PolicyKind::bounded_wait);
  EXPECT_EQ(wait.bound_ms, 10);
  EXPECT_EQ(wait.name(), "bounded-wait:10");
  EXPECT_EQ(Policy::parse(wait.name()), wait);
  EXPECT_EQ(Policy::parse("borrow:0").bound_ms, 0);
  // The default bound is written as the bare name.
  EXPECT_EQ(Policy::parse("borrow:1000").name(), "borrow");
}

TEST(Policy, OnlyUnsafeGivesUpUniqueness) {
  for (const auto& p : policy_catalog()) {
    EXPECT_EQ(Policy::of(p.kind).promises_uniqueness(), p.kind != PolicyKind::unsafe) << p.name;
  }
}

struct BadPolicy {
  const char* name;
  const char* text;
  const char* message_part;
};

class PolicyErrors : public ::testing::TestWithParam<BadPolicy> {};

TEST_P(PolicyErrors, IsOneClearError) {
  const BadPolicy& bad = GetParam();
  try {
    Policy::parse(bad.text);
    FAIL() << bad.text << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.message_part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, PolicyErrors,
    ::testing::Values(
        BadPolicy{"Unknown", "refuze", "one of: refuse, wait, bounded-wait, borrow, unsafe, clock-sequence"},
        BadPolicy{"Empty", "", "unknown policy"},
        BadPolicy{"BoundOnAPolicyWithout", "refuse:5", "takes no bound"},
        BadPolicy{"NegativeBound", "bounded-wait:-1", "not a number of ms"},
        BadPolicy{"NonNumericBound", "borrow:soon", "not a number of ms"},
        BadPolicy{"EmptyBound", "borrow:", "not a number of ms"},
        BadPolicy{"TrailingJunk", "borrow:5ms", "not a number of ms"},
        // bound × 10^6 ns must fit int64 where the wait is measured: a day at most.
        BadPolicy{"BoundBeyondADay", "bounded-wait:86400001", "at most 86400000"},
        BadPolicy{"BoundOverflowingNs", "borrow:9223372036854775807", "at most 86400000"},
        BadPolicy{"BoundOutOfRange", "borrow:99999999999999999999", "at most 86400000"}),
    [](const ::testing::TestParamInfo<BadPolicy>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace idbench
