// round_trips_test.cpp — the real-system bench's core against sh fakes of the line protocol:
// request sizes, client counts, percentiles, the adapter's counter line, a failing program.
// Never asserts speed.
#include "bench/real/round_trips.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "bench/real/direct.hpp"
#include "bench/real/real_run.hpp"
#include "bench/real/run_json.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::realbench {
namespace {

// Answers every request "n" with n increasing decimal IDs.
constexpr const char* kCounter = R"(i=0
while read n; do
  j=0
  while [ "$j" -lt "$n" ]; do i=$((i + 1)); echo "$i"; j=$((j + 1)); done
done
)";

class RoundTrips : public ::testing::Test {
 protected:
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  external::ExecSpec spec(const std::string& body) {
    external::ExecSpec s;
    s.command = "sh " + script("fake-" + std::to_string(++n_) + ".sh", body);
    s.timeout_ms = 5000;
    return s;
  }
  static CellPlan plan(int clients, std::uint64_t size) {
    return {.clients = clients, .request_size = size, .warmup_ns = 20'000'000,
            .duration_ns = 200'000'000};
  }
  plumbing::TempDir dir_{"idbench-realbench-test"};
  int n_ = 0;
};

TEST_F(RoundTrips, CountsIdsPerRequestSizeAndClient) {
  for (const int clients : {1, 3}) {
    for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{100}}) {
      const CellFigures f = measure_cell(spec(kCounter), plan(clients, size));
      SCOPED_TRACE(testing::Message() << clients << " clients, " << size << " IDs/request");
      EXPECT_EQ(f.error, "");
      EXPECT_EQ(f.clients, clients);
      EXPECT_EQ(f.request_size, size);
      EXPECT_GT(f.requests, 0u);
      EXPECT_EQ(f.ids, f.requests * size);
      EXPECT_EQ(f.latency_ns.count(), f.requests);
      ASSERT_EQ(f.ids_per_client.size(), static_cast<std::size_t>(clients));
      for (std::uint64_t ids : f.ids_per_client) EXPECT_GT(ids, 0u);
      EXPECT_GT(f.seconds, 0);
      EXPECT_GT(f.ids_per_s(), 0);
      EXPECT_DOUBLE_EQ(f.ids_per_s_per_client(), f.ids_per_s() / clients);
      const auto p50 = f.latency_ns.value_at_quantile(0.5);
      const auto p99 = f.latency_ns.value_at_quantile(0.99);
      const auto p999 = f.latency_ns.value_at_quantile(0.999);
      EXPECT_GT(p50, 0u);
      EXPECT_LE(p50, p99);
      EXPECT_LE(p99, p999);
      EXPECT_LE(p999, f.latency_ns.max());
      EXPECT_FALSE(f.adapter_counters.has_value()) << "no summary line: unknown";
      EXPECT_FALSE(f.system_side.has_value()) << "no times written: unknown";
    }
  }
}

// Writes, at EOF, one time per answered request to $IDBENCH_SYSTEM_TIMES: TIME ns each.
std::string timing_counter(const std::string& time, const std::string& lines = "$k") {
  return std::string(kCounter).replace(std::string(kCounter).find("while read n; do"), 16,
                                       "k=0\nwhile read n; do k=$((k + 1))") +
         "j=0; while [ \"$j\" -lt " + lines + " ]; do echo " + time +
         "; j=$((j + 1)); done > \"$IDBENCH_SYSTEM_TIMES\"\n";
}

TEST_F(RoundTrips, TheSystemsOwnShareIsWhatTheProgramsTimedOverTheCountedRequests) {
  // Every request took 1 ms in the system: each client's own rate is 1,000 requests a second.
  const CellFigures f = measure_cell(spec(timing_counter("1000000")), plan(3, 10));
  EXPECT_EQ(f.error, "");
  ASSERT_TRUE(f.system_side.has_value());
  EXPECT_NEAR(f.system_side->ids_per_s, 3 * 10 * 1000.0, 1e-6);
  EXPECT_EQ(f.system_side->latency_ns.count(), f.requests);
  EXPECT_EQ(f.system_side->latency_ns.value_at_quantile(0.5), 1'000'000u);
  EXPECT_EQ(f.system_side->latency_ns.max(), 1'000'000u);
}

TEST_F(RoundTrips, TimesForFewerRequestsThanCountedOrNotANumberAreUnknown) {
  for (const auto& [time, lines] : std::vector<std::pair<std::string, std::string>>{
           {"1000000", "1"}, {"1ms", "$k"}, {"-5", "$k"}}) {
    const CellFigures f = measure_cell(spec(timing_counter(time, lines)), plan(1, 1));
    EXPECT_EQ(f.error, "");
    EXPECT_GT(f.requests, 1u);
    EXPECT_FALSE(f.system_side.has_value()) << time << " × " << lines;
  }
}

// A session answering after a pause; it counts the requests it was asked.
class PausingSession final : public Session {
 public:
  PausingSession(std::int64_t pause_ns, std::uint64_t& made) : pause_ns_(pause_ns), made_(made) {}
  std::uint64_t request(std::uint64_t n) override {
    std::this_thread::sleep_for(std::chrono::nanoseconds(pause_ns_));
    ++made_;
    return n;
  }

 private:
  std::int64_t pause_ns_;
  std::uint64_t& made_;
};

TEST(RoundTripSessions, TheCountedRequestsAreTheLastOnesEachClientMade) {
  // 1 ms requests, a 200 ms warm-up: the first counted request of each client comes after
  // warm-up ones, and no request is made once the window has closed.
  std::vector<std::uint64_t> made(2, 0);
  std::vector<Counted> counted;
  const CellFigures f = measure_sessions(
      [&](int k) {
        return std::make_unique<PausingSession>(1'000'000, made[static_cast<std::size_t>(k)]);
      },
      {.clients = 2, .request_size = 4, .warmup_ns = 200'000'000, .duration_ns = 100'000'000},
      &counted);
  EXPECT_EQ(f.error, "");
  ASSERT_EQ(counted.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_GE(counted[k].first, 1u) << "client " << k << ": warm-up requests come first";
    EXPECT_GE(counted[k].count, 1u);
    EXPECT_EQ(counted[k].first + counted[k].count, made[k]) << "client " << k;
    EXPECT_EQ(f.ids_per_client[k], 4 * counted[k].count);
  }
}

TEST_F(RoundTrips, ARequestSlowerThanTheWindowIsStillCounted) {
  // Each answer takes 0.3 s; the warm-up's request ends after the 0.1 s window.
  const CellFigures f = measure_cell(spec("while read n; do sleep 0.3; j=0; while [ \"$j\" -lt "
                                          "\"$n\" ]; do echo 7; j=$((j + 1)); done; done\n"),
                                     {.clients = 2, .request_size = 2, .warmup_ns = 10'000'000,
                                      .duration_ns = 100'000'000});
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.requests, 2u) << "one per client";
  EXPECT_EQ(f.ids, 4u);
  EXPECT_GT(f.ids_per_s(), 0);
}

TEST_F(RoundTrips, EachClientHasItsOwnProgramAndNodeId) {
  // Prints its node id as the ID: two clients must show two different node ids, and two pids.
  const CellFigures f = measure_cell(
      spec("while read n; do j=0; while [ \"$j\" -lt \"$n\" ]; do echo \"$IDBENCH_NODE_ID\"; "
           "j=$((j + 1)); done; done; echo \"pid $$ node $IDBENCH_NODE_ID\" >&2\n"),
      plan(2, 1));
  EXPECT_EQ(f.error, "");
  std::set<std::string> lines(f.stderr_lines.begin(), f.stderr_lines.end());
  EXPECT_EQ(lines.size(), 2u) << "one distinct stderr line per client";
}

TEST_F(RoundTrips, SumsTheAdapterCounterLineOverClients) {
  const CellFigures f = measure_cell(
      spec(std::string(kCounter) + "echo 'fake-adapter: retries=2 deadlocks=1 failovers=0' >&2\n"),
      plan(3, 10));
  EXPECT_EQ(f.error, "");
  ASSERT_TRUE(f.adapter_counters.has_value());
  EXPECT_EQ(f.adapter_counters->at("retries"), 6u);
  EXPECT_EQ(f.adapter_counters->at("deadlocks"), 3u);
  EXPECT_EQ(f.adapter_counters->at("failovers"), 0u);
}

TEST_F(RoundTrips, AFailingProgramIsTheCellsErrorAndKeepsTheFigures) {
  // Answers 5 requests, then prints one ID too few and exits.
  const CellFigures f = measure_cell(spec(R"(k=0
while read n; do
  k=$((k + 1))
  if [ "$k" -gt 5 ]; then echo 1; exit 0; fi
  j=0; while [ "$j" -lt "$n" ]; do echo "$k$j"; j=$((j + 1)); done
done
)"),
                                     {.clients = 2, .request_size = 3, .warmup_ns = 0,
                                      .duration_ns = 2'000'000'000});
  EXPECT_NE(f.error, "");
  EXPECT_NE(f.error.find("fake-"), std::string::npos) << "names the program: " << f.error;
  EXPECT_EQ(f.error.find("exec 2>>"), std::string::npos) << "as given, not its sh: " << f.error;
  EXPECT_GE(f.failed_clients, 1);
  EXPECT_EQ(f.ids, f.requests * 3) << "only whole answers are counted";
}

TEST_F(RoundTrips, AProgramThatCannotStartIsAnError) {
  external::ExecSpec s;
  s.command = dir_.path() + "/no-such-program";
  const CellFigures f = measure_cell(s, plan(2, 1));
  EXPECT_NE(f.error.find("no-such-program"), std::string::npos) << f.error;
  EXPECT_EQ(f.requests, 0u);
  // The first failure stops the cell: the other client may stop before it asks.
  EXPECT_GE(f.failed_clients, 1);
}

TEST(DirectClient, TwoWindowsCombineAsOne) {
  CellFigures a, b;
  a.clients = b.clients = 2;
  a.seconds = 1.0, b.seconds = 0.5;
  a.ids = 300, b.ids = 150;
  a.requests = 300, b.requests = 150;
  a.ids_per_client = {100, 200}, b.ids_per_client = {50, 100};
  a.latency_ns.record(1000), b.latency_ns.record(3000);
  a.adapter_counters = external::Counters{{"retries", 1}, {"deadlocks", 0}};
  b.adapter_counters = external::Counters{{"retries", 2}, {"deadlocks", 1}};
  b.error = "later";
  const CellFigures c = combined(a, b);
  EXPECT_DOUBLE_EQ(c.seconds, 1.5);
  EXPECT_EQ(c.ids, 450u);
  EXPECT_DOUBLE_EQ(c.ids_per_s(), 300.0);
  EXPECT_EQ(c.ids_per_client, (std::vector<std::uint64_t>{150, 300}));
  EXPECT_EQ(c.latency_ns.count(), 2u);
  EXPECT_EQ(c.latency_ns.max(), 3000u);
  EXPECT_EQ(c.adapter_counters->at("retries"), 3u);
  EXPECT_EQ(c.adapter_counters->at("deadlocks"), 1u);
  EXPECT_EQ(c.error, "later");
}

TEST(RoundTripsPlan, RefusesAPlanThatCannotRun) {
  external::ExecSpec s;
  s.command = "true";
  EXPECT_THROW(measure_cell(s, {.clients = 0}), Error);
  EXPECT_THROW(measure_cell(s, {.request_size = 0}), Error);
  EXPECT_THROW(measure_cell(s, {.request_size = external::kMaxRequest + 1}), Error);
  EXPECT_THROW(measure_cell(s, {.duration_ns = 0}), Error);
}

TEST(CounterLine, ReadsOnlyASummaryLine) {
  const auto c = parse_counter_line("idbench-mariadb-adapter: retries=12 deadlocks=3 failovers=0");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->at("retries"), 12u);
  EXPECT_EQ(c->at("deadlocks"), 3u);
  EXPECT_EQ(c->at("failovers"), 0u);
  for (const char* other : {"", "retries=1", "adapter: retries=x", "adapter: retries=",
                            "adapter: started", "two words: a=1", "adapter: a=1 b",
                            "adapter: a=-1"}) {
    EXPECT_FALSE(parse_counter_line(other).has_value()) << other;
  }
}

TEST_F(RoundTrips, TheHarnessHopIsMeasuredApartThroughTheNullAdapter) {
  RunPlan p;
  p.targets.push_back({"exec", nullptr, spec(kCounter)});
  p.clients = {1, 2};
  p.requests = {1};
  p.warmup_ns = 10'000'000;
  p.duration_ns = 100'000'000;
  p.hop = true;
  RunRecord rec;
  run_plan(p, rec, [](const RunRecord&) {});
  ASSERT_EQ(rec.hop.size(), 2u);
  EXPECT_EQ(rec.cells.size(), 2u) << "the hop is no cell of a system";
  EXPECT_EQ(rec.errors(), 0u);
  for (const CellRecord& h : rec.hop) {
    EXPECT_EQ(h.figures.error, "");
    EXPECT_GT(h.figures.ids, 0u);
    EXPECT_NE(h.command.find("idbench-mariadb-adapter"), std::string::npos) << h.command;
    EXPECT_NE(h.command.find(" null"), std::string::npos) << h.command;
  }
  const nlohmann::json j = to_json(p, rec, "exec");
  ASSERT_EQ(j["harness_hop"].size(), 2u);
  EXPECT_EQ(j["harness_hop"][1]["clients"], 2);
  EXPECT_EQ(j["harness_hop"][1]["system"], "harness hop");
  EXPECT_GT(j["harness_hop"][1]["ids_per_s"].get<double>(), 0);
  EXPECT_TRUE(j["cells"][0]["direct"].is_null());
}

TEST_F(RoundTrips, APlanRunsEveryCellAndReportsEachOne) {
  RunPlan p;
  p.targets.push_back({"exec", nullptr, spec(kCounter)});
  p.clients = {1, 2};
  p.requests = {1, 50};
  p.warmup_ns = 10'000'000;
  p.duration_ns = 100'000'000;
  RunRecord rec;
  int calls = 0;
  run_plan(p, rec, [&](const RunRecord&) { ++calls; });
  EXPECT_TRUE(rec.complete);
  EXPECT_EQ(rec.planned, 4u);
  ASSERT_EQ(rec.cells.size(), 4u);
  EXPECT_EQ(calls, 5) << "after every cell, and once complete";
  EXPECT_EQ(rec.errors(), 0u);
  const nlohmann::json j = to_json(p, rec, "exec");
  EXPECT_EQ(j["complete"], true);
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_EQ(j["cells"][3]["clients"], 2);
  EXPECT_EQ(j["cells"][3]["request_size"], 50);
  EXPECT_TRUE(j["cells"][3]["durability"].is_null()) << "no servers, no durability setting";
  EXPECT_TRUE(j["cells"][3]["adapter_counters"].is_null()) << "unknown";
  EXPECT_GT(j["cells"][3]["ids_per_s"].get<double>(), 0);
  EXPECT_TRUE(j["cells"][3]["system_side"].is_null()) << "the program timed nothing";
  EXPECT_TRUE(j["harness_hop"].empty()) << "the plan asked for no hop";
  EXPECT_LE(j["cells"][3]["latency_ns"]["p50"], j["cells"][3]["latency_ns"]["p999"]);
}

}  // namespace
}  // namespace idbench::realbench
