// real_locality_test.cpp — the locality pass over sh fakes of the line protocol: the IDs go
// through the InnoDB model in the order they arrived (an ordered stream fills pages, a random
// one does not), every client contributes, a failing program is the error, the time cap stops
// collecting and says so, and the JSON carries the figures. Never asserts speed.
#include "bench/real/real_locality.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

#include "bench/real/real_run.hpp"
#include "bench/real/run_json.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::realbench {
namespace {

// Increasing decimal IDs from node*10^9; at EOF "fake: nodeK=<IDs it gave>" on stderr.
constexpr const char* kCounter = R"sh(i=$((IDBENCH_NODE_ID * 1000000000)); c=0
while read n; do
  j=0
  while [ "$j" -lt "$n" ]; do i=$((i + 1)); c=$((c + 1)); echo "$i"; j=$((j + 1)); done
done
echo "fake: node$IDBENCH_NODE_ID=$c" >&2
)sh";
// A linear congruential generator (glibc's constants, mod 2^31): IDs in no order.
constexpr const char* kScattered = R"sh(x=12345
while read n; do
  j=0
  while [ "$j" -lt "$n" ]; do x=$(( (x * 1103515245 + 12345) % 2147483648 )); echo "$((x + 1))"; j=$((j + 1)); done
done
)sh";
constexpr const char* kDiesAfterThree = R"sh(k=0
while read n; do
  k=$((k + 1)); [ "$k" -gt 3 ] && exit 0
  echo "$k"
done
)sh";
constexpr const char* kSlow = R"sh(i=0
while read n; do sleep 0.05; i=$((i + 1)); echo "$i"; done
)sh";

class RealLocality : public ::testing::Test {
 protected:
  external::ExecSpec spec(const std::string& body) {
    const std::string path = dir_.path() + "/fake-" + std::to_string(++n_) + ".sh";
    std::ofstream(path) << body;
    ::chmod(path.c_str(), 0755);
    external::ExecSpec s;
    s.command = "sh " + path;
    s.width = IdWidth::bits64;
    s.timeout_ms = 5000;
    return s;
  }
  plumbing::TempDir dir_{"idbench-reallocality-test"};
  int n_ = 0;
};

TEST_F(RealLocality, AnOrderedStreamFillsItsPagesAsAnAppendOnlyTable) {
  // 10 leaf pages of 625 BIGINT rows: 9 closed at ~15/16, the last one less full.
  const LocalityFigures f = measure_locality(spec(kCounter), {.clients = 1, .rows = 6000});
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.note, "");
  EXPECT_EQ(f.rows, 6000u);
  ASSERT_TRUE(f.metrics.has_value());
  EXPECT_EQ(f.metrics->rows, 6000u);
  EXPECT_EQ(f.metrics->key_type, locality::KeyType::bigint);
  EXPECT_GE(f.metrics->leaf_pages.value_or(0), 4u);
  EXPECT_GT(f.metrics->avg_leaf_fill.value_or(0), 0.85) << "sequential inserts close pages at ~15/16";
}

TEST_F(RealLocality, TheSameIdsAreJudgedAtEveryRowSizeAsked) {
  const LocalityFigures f =
      measure_locality(spec(kCounter), {.clients = 1, .rows = 6000, .payloads = {0, 250, 1000}});
  ASSERT_TRUE(f.metrics.has_value()) << f.error;
  ASSERT_EQ(f.at_payloads.size(), 2u) << "0 is the key-only headline, not repeated";
  EXPECT_EQ(f.at_payloads[0].first, 250);
  EXPECT_EQ(f.at_payloads[1].first, 1000);
  std::uint64_t pages = f.metrics->leaf_pages.value_or(0);
  for (const auto& [payload, m] : f.at_payloads) {
    EXPECT_EQ(m.rows, 6000u) << payload << " B: the same IDs";
    EXPECT_GT(m.leaf_pages.value_or(0), pages) << payload << " B: wider rows need more pages";
    EXPECT_GT(m.avg_leaf_fill.value_or(0), 0.85) << payload << " B: still append-only";
    pages = m.leaf_pages.value_or(0);
  }
}

TEST_F(RealLocality, AScatteredStreamIsInsertedInArrivalOrderNotSorted) {
  const LocalityFigures f = measure_locality(spec(kScattered), {.clients = 1, .rows = 6000});
  ASSERT_TRUE(f.metrics.has_value()) << f.error;
  EXPECT_EQ(f.metrics->rows, 6000u);
  EXPECT_LT(f.metrics->avg_leaf_fill.value_or(1), 0.8) << "random inserts split pages in the middle";
}

TEST_F(RealLocality, EveryClientContributesAndItsSummaryLineIsRead) {
  const LocalityFigures f = measure_locality(spec(kCounter), {.clients = 2, .rows = 2000});
  ASSERT_TRUE(f.metrics.has_value()) << f.error;
  EXPECT_EQ(f.metrics->rows, 2000u) << "two nodes' ranges never collide";
  ASSERT_TRUE(f.adapter_counters.has_value()) << "each fake prints a summary at EOF";
  const auto& c = *f.adapter_counters;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_GT(c.at("node0"), 0u);
  EXPECT_GT(c.at("node1"), 0u);
  EXPECT_EQ(c.at("node0") + c.at("node1"), 2000u);
}

TEST_F(RealLocality, AFailingProgramIsTheErrorAndTheModelDoesNotRun) {
  const LocalityFigures f = measure_locality(spec(kDiesAfterThree), {.clients = 1, .rows = 100});
  EXPECT_NE(f.error.find("fake-"), std::string::npos) << "names the program: " << f.error;
  EXPECT_EQ(f.error.find("sh -c"), std::string::npos) << "not the sh around it: " << f.error;
  EXPECT_EQ(f.rows, 3u);
  EXPECT_FALSE(f.metrics.has_value());
}

TEST_F(RealLocality, TheTimeCapStopsCollectingAndSaysSo) {
  const LocalityFigures f =
      measure_locality(spec(kSlow), {.clients = 1, .rows = 1000, .max_seconds = 0.3});
  EXPECT_EQ(f.error, "");
  EXPECT_LT(f.rows, 1000u);
  EXPECT_GT(f.rows, 0u);
  EXPECT_NE(f.note.find("cap"), std::string::npos) << f.note;
  EXPECT_TRUE(f.metrics.has_value());
}

TEST_F(RealLocality, BadPlansAreRefused) {
  EXPECT_THROW(measure_locality(spec(kCounter), {.clients = 0, .rows = 10}), Error);
  EXPECT_THROW(measure_locality(spec(kCounter), {.clients = 1, .rows = 0}), Error);
}

TEST_F(RealLocality, TheRunJsonCarriesThePass) {
  RunPlan plan;
  plan.targets.push_back({"exec", nullptr, spec(kCounter)});
  plan.clients = {1};
  plan.requests = {1};
  plan.duration_ns = 50'000'000;
  plan.warmup_ns = 0;
  plan.locality_rows = 1500;
  plan.locality_clients = {1};
  RunRecord record;
  run_plan(plan, record, [](const RunRecord&) {});
  ASSERT_EQ(record.locality.size(), 1u);
  const nlohmann::json j = to_json(plan, record, "exec");
  EXPECT_EQ(j["config"]["locality_rows"], 1500);
  ASSERT_EQ(j["locality"].size(), 1u);
  const nlohmann::json& l = j["locality"][0];
  EXPECT_EQ(l["system"], "exec");
  EXPECT_EQ(l["clients"], 1);
  EXPECT_EQ(l["rows"], 1500);
  EXPECT_EQ(l["key_type"], "bigint");
  EXPECT_GT(l["avg_leaf_fill"].get<double>(), 0.5);
  EXPECT_GE(l["leaf_pages"].get<int>(), 2);
  EXPECT_TRUE(l["error"].is_null());
}

}  // namespace
}  // namespace idbench::realbench
