// server_clock_nemesis_test.cpp — the server clock nemesis on a real mariadbd under libfaketime
// (skipped without MariaDB or libfaketime): a step moves the server's SYSDATE() and is
// recorded once with the faked time it left; a server started after a step reads the stepped
// clock; a planted step that only records is caught by the same check; a verb it does not play
// fails and records nothing.
#include "real/server_clock_nemesis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"
#include "real/mariadb_server.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
// SYSDATE(6) has µs resolution; the margin only absorbs rounding, never a wait.
constexpr std::int64_t kRoundingNs = 1'000'000;

bool installed() {
  if (plumbing::find_program("mariadbd").empty()) return false;
  try {
    chaos::find_libfaketime();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The check: the server's SYSDATE(6), read between two true instants, is `offset_ns` away from
// true time. Empty when it is; else what it read.
std::string sysdate_off_by(MariadbServer& server, std::int64_t offset_ns) {
  const std::int64_t before = plumbing::true_ns();
  const std::string text = server.query("SELECT UNIX_TIMESTAMP(SYSDATE(6))");
  const std::int64_t after = plumbing::true_ns();
  const auto server_ns = static_cast<std::int64_t>(std::llround(std::stod(text) * 1e9));
  if (server_ns >= before + offset_ns - kRoundingNs &&
      server_ns <= after + offset_ns + kRoundingNs) {
    return "";
  }
  return "SYSDATE(6) − true time is " + std::to_string((server_ns - before) / 1'000'000) +
         " ms, not " + std::to_string(offset_ns / 1'000'000) + " ms";
}

MariadbSettings on(const ServerClockNemesis& clock) {
  MariadbSettings s;
  s.env = clock.env();
  return s;
}

// The planted defect: records the step as the real nemesis does, faked time included, and
// writes nothing.
class StepThatOnlyRecords : public fault::Nemesis {
 public:
  std::string_view kind() const override { return "planted"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override {
    const fault::Instant now = fault::Instant::now();
    t.record_at(now, fault::kNoNode, step.kind, step.what, now.true_ns + step.step_ns);
  }
};

TEST(ServerClockNemesis, AStepMovesTheServersSysdateAndRecordsItsFakedTimeOnce) {
  if (!installed()) GTEST_SKIP() << "mariadb-server or libfaketime is not installed";
  ServerClockNemesis clock;
  EXPECT_EQ(clock.kind(), "clock");
  MariadbServer server(on(clock));
  fault::Timeline t("test", "step", nullptr);
  EXPECT_EQ(sysdate_off_by(server, 0), "");
  const fault::Instant before = fault::Instant::now();
  clock.invoke({.op = "step", .step_ns = -5 * kS, .kind = "fault", .what = "back 5 s"}, t);
  const fault::Instant after = fault::Instant::now();
  EXPECT_EQ(sysdate_off_by(server, -5 * kS), "");
  ASSERT_EQ(t.history().size(), 1u);
  const fault::FaultRecord& r = t.history()[0];
  EXPECT_EQ(r.node, fault::kNoNode);
  EXPECT_EQ(r.kind, "fault");
  EXPECT_EQ(r.what, "back 5 s");
  EXPECT_GE(r.mono_ns, before.mono_ns);
  EXPECT_LE(r.mono_ns, after.mono_ns);
  ASSERT_TRUE(r.faked_ns.has_value());
  EXPECT_EQ(*r.faked_ns, r.true_ns - 5 * kS);  // recorded when the write landed
  EXPECT_EQ(clock.fake_at(after.true_ns), after.true_ns - 5 * kS);
  // Steps add up; a server started after them reads the clock they left.
  clock.invoke({.op = "step", .step_ns = 2 * kS, .kind = "fault", .what = "forward 2 s"}, t);
  server.stop();
  server.start();
  EXPECT_EQ(sysdate_off_by(server, -3 * kS), "");
  EXPECT_EQ(t.history().size(), 2u);
}

TEST(ServerClockNemesis, APlantedStepThatOnlyRecordsIsCaught) {
  if (!installed()) GTEST_SKIP() << "mariadb-server or libfaketime is not installed";
  const ServerClockNemesis clock;
  MariadbServer server(on(clock));
  fault::Timeline t("test", "planted", nullptr);
  StepThatOnlyRecords planted;
  planted.invoke({.op = "step", .step_ns = -5 * kS, .kind = "fault", .what = "back 5 s"}, t);
  // Its record claims the step; the server's SYSDATE() did not move.
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_TRUE(t.history()[0].faked_ns.has_value());
  EXPECT_NE(sysdate_off_by(server, -5 * kS), "");
  EXPECT_EQ(sysdate_off_by(server, 0), "");
}

TEST(ServerClockNemesis, AVerbItDoesNotPlayFailsAndRecordsNothing) {
  if (!installed()) GTEST_SKIP() << "mariadb-server or libfaketime is not installed";
  ServerClockNemesis clock;
  fault::Timeline t("test", "wrong", nullptr);
  EXPECT_THROW(clock.invoke({.op = "set_rate", .rate = 2, .kind = "fault", .what = "x"}, t),
               std::logic_error);
  EXPECT_TRUE(t.history().empty());
  const std::int64_t now = plumbing::true_ns();
  EXPECT_EQ(clock.fake_at(now), now);  // the clock did not move
}

}  // namespace
}  // namespace idbench::real
