// The default locality matrix: its plan comes from the registry description, and its JSON is
// what reports/inputs.py reads.
#include "bench/locality/matrix.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <csignal>
#include <sstream>

#include "generators/registry.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::locality {
namespace {

TEST(LocalityMatrix, PlanIsEveryLocalityVariantAtOneAndEightWritersThenTheBaselines) {
  const auto plan = plan_matrix(1234);
  std::size_t i = 0;
  for (const auto& v : variants()) {
    if (!v.defaults.locality) continue;
    for (const std::uint64_t w : {1, 8}) {
      ASSERT_LT(i, plan.size());
      EXPECT_EQ(plan[i].stream.variant, v.name);
      EXPECT_EQ(plan[i].stream.writers, w);
      const bool live = v.defaults.locality_live_pace;
      EXPECT_EQ(plan[i].stream.rate, live ? kLivePaceRatePerMs : kMatrixRatePerMs) << v.name;
      EXPECT_EQ(plan[i].stream.arrival, live ? Arrival::poisson : Arrival::round_robin) << v.name;
      EXPECT_EQ(plan[i].stream.rows, 1234u);
      EXPECT_EQ(plan[i].stream.layout, "twitter");
      ++i;
    }
  }
  ASSERT_EQ(plan.size(), i + 2);
  EXPECT_EQ(plan[i].stream.synthetic, Synthetic::sequential);
  EXPECT_EQ(plan[i + 1].stream.synthetic, Synthetic::random);
}

// The pace is the description's, never a name's. A variant marked
// locality_live_pace is planned at 10 IDs/s with Poisson arrivals, and such a stream of a
// variant whose order is not by time (UUIDv1) fills its leaves like random keys, while a
// k-sorted one (UUIDv6) still appends.
TEST(LocalityMatrix, VariantsMarkedForALivePaceRunAtItAndShowTheirOrder) {
  std::size_t live = 0;
  for (const RunSpec& r : plan_matrix(20'000)) {
    const Variant* v = r.stream.variant.empty() ? nullptr : find_variant(r.stream.variant);
    if (v == nullptr || !v->defaults.locality_live_pace || r.stream.writers != 1) continue;
    ++live;
    const double fill = run_locality(r).metrics.avg_leaf_fill.value_or(-1);
    if (v->ordering == Ordering::none) {
      EXPECT_LE(fill, 0.70) << v->name;
    } else if (v->ordering == Ordering::k_sorted) {
      EXPECT_GE(fill, 0.90) << v->name;
    }
  }
  EXPECT_GE(live, 2u);
}

// One stream is built once and inserted at every row size: each group holds one stream at every
// size, and the groups cover the plan once.
TEST(LocalityMatrix, EachStreamIsOneGroupHoldingEveryRowSize) {
  const std::vector<int> sizes = {0, 250, 1000};
  const auto one = plan_matrix(1000, {0});
  const auto plan = plan_matrix(1000, sizes);
  const auto groups = runs_by_stream(plan);
  ASSERT_EQ(groups.size(), one.size());
  std::vector<int> seen(plan.size(), 0);
  for (const auto& group : groups) {
    ASSERT_EQ(group.size(), sizes.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
      const RunSpec& r = plan[group[k]];
      ++seen[group[k]];
      EXPECT_EQ(r.payload_bytes, sizes[k]);
      EXPECT_EQ(r.stream.variant, plan[group[0]].stream.variant);
      EXPECT_EQ(r.stream.writers, plan[group[0]].stream.writers);
      EXPECT_EQ(r.stream.synthetic, plan[group[0]].stream.synthetic);
    }
  }
  EXPECT_EQ(seen, std::vector<int>(plan.size(), 1));
}

// Row size is an axis: the same streams at every row size, key-only first.
TEST(LocalityMatrix, EveryStreamRunsAtEveryRowSize) {
  const auto one = plan_matrix(1000, {0});
  const auto plan = plan_matrix(1000, {0, 250, 1000});
  ASSERT_EQ(plan.size(), 3 * one.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].payload_bytes, std::vector<int>({0, 250, 1000})[i / one.size()]);
    EXPECT_EQ(plan[i].stream.variant, one[i % one.size()].stream.variant);
    EXPECT_EQ(plan[i].stream.writers, one[i % one.size()].stream.writers);
  }
}

TEST(LocalityMatrix, TheUsersRowSizeJoinsTheAxisAndNamesTheDecisionRow) {
  MatrixOptions o;
  o.decision_payload_bytes = 500;
  EXPECT_EQ(matrix_row_sizes(o), (std::vector<int>{0, 100, 250, 500, 1000}));
  o.decision_payload_bytes = 100;
  EXPECT_EQ(matrix_row_sizes(o), (std::vector<int>{0, 100, 250, 1000}));
  o.decision_payload_bytes = 9000;  // beyond the in-page limit: refused before measuring
  o.out = ::testing::TempDir() + "/never.json";
  EXPECT_THROW(run_matrix(o), Error);
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(LocalityMatrix, WritesTheJsonTheReportReads) {
  const plumbing::TempDir tmp("idbench-locality-matrix-test");
  const std::string path = tmp.path() + "/locality-matrix.json";
  MatrixOptions o;
  o.rows = 2000;
  o.validate = false;
  o.out = path;
  EXPECT_EQ(run_matrix(o), 0);
  const auto doc = read_json(path);
  EXPECT_EQ(doc["complete"], true);
  ASSERT_TRUE(doc.contains("validation"));
  EXPECT_TRUE(doc["validation"].is_null());
  EXPECT_TRUE(doc["context"].is_object());
  ASSERT_EQ(doc["matrix"].size(), plan_matrix(2000, matrix_row_sizes(o)).size());
  EXPECT_EQ(doc["row_sizes"], (std::vector<int>{0, 100, 250, 1000}));
  EXPECT_EQ(doc["decision_payload_bytes"], kDecisionPayloadBytes);
  for (const auto& m : doc["matrix"]) {
    for (const char* key : {"avg_leaf_fill", "splits_per_1k", "pool_miss_rate", "stream",
                            "leaf_pages", "rows", "context"}) {
      EXPECT_TRUE(m.contains(key)) << key;
    }
    EXPECT_EQ(m["rows"], 2000);
  }
  EXPECT_EQ(doc["matrix"].back()["stream"]["synthetic"], "random");
  EXPECT_EQ(doc["matrix"][0]["stream"]["variant"], variants()[0].name);
}

TEST(LocalityMatrix, AnUnwritableOutputFails) {
  MatrixOptions o;
  o.rows = 2000;
  o.validate = false;
  o.out = ::testing::TempDir() + "/no-such-dir/m.json";
  EXPECT_THROW(run_matrix(o), plumbing::OutputError);
  o.out = "/dev/full";
  EXPECT_THROW(run_matrix(o), plumbing::OutputError);
}

TEST(LocalityMatrix, RowsOutOfBoundsAreRefused) {
  MatrixOptions o;
  o.out = ::testing::TempDir() + "/never.json";
  o.rows = 0;
  EXPECT_THROW(run_matrix(o), Error);
  o.rows = 10'000'000'000ull;
  EXPECT_THROW(run_matrix(o), Error);
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// A progress stream that sends this process SIGTERM when the matrix announces its third run,
// i.e. between (or during) the writes of the JSON, as `kill` does from outside.
class TermOnThirdRun : public std::stringbuf {
 protected:
  int sync() override {
    if (str().find("[locality 3/") != std::string::npos && !sent_) {
      sent_ = true;
      std::raise(SIGTERM);
    }
    return 0;
  }

 private:
  bool sent_ = false;
};

// Seen in CI: SIGTERM during the matrix killed it mid-write and left a temp file
// beside --out. A signal now stops the matrix between writes: the JSON holds the finished runs,
// nothing else is left in the directory, and the command unwinds with Interrupted (exit 130).
TEST(LocalityMatrixDeathTest, ASignalStopsBetweenWritesAndLeavesOnlyTheJson) {
  const plumbing::TempDir tmp("idbench-locality-matrix-test");
  const std::string dir = tmp.path() + "/locality-matrix-int";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/m.json";
  EXPECT_EXIT(
      {
        TermOnThirdRun buf;
        std::ostream progress(&buf);
        MatrixOptions o;
        o.rows = 2000;
        o.validate = false;
        o.out = path;
        o.progress = &progress;
        try {
          run_matrix(o);
        } catch (const plumbing::Interrupted&) {
          std::_Exit(130);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(130), "");
  const auto doc = read_json(path);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_GE(doc["matrix"].size(), 2u);
  EXPECT_FALSE(doc.contains("validation"));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"m.json"});
}

}  // namespace
}  // namespace idbench::locality
