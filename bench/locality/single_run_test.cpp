// One locality run, and its --dump-keys file: complete or absent.
#include "bench/locality/single_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "plumbing/atomic_file.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::locality {
namespace {

RunSpec sequential(std::uint64_t rows, std::string dump) {
  RunSpec r;
  r.stream.synthetic = Synthetic::sequential;
  r.stream.rows = rows;
  r.dump_keys = std::move(dump);
  return r;
}

TEST(SingleRun, DumpedKeysReplayToTheSameMetrics) {
  const plumbing::TempDir tmp("idbench-single-run-test");
  const std::string path = tmp.path() + "/dumped.txt";
  const RunResult direct = run_locality(sequential(10'000, path));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().substr(0, 6), "1\n2\n3\n");
  RunSpec replay;
  replay.stream.keys_file = path;
  const RunResult again = run_locality(replay);
  EXPECT_EQ(again.metrics.rows, 10'000u);
  EXPECT_EQ(again.metrics.leaf_pages, direct.metrics.leaf_pages);
}

// It exited 0 with an empty file (300 keys) or left a 4 KB partial file (10 000 keys).
TEST(SingleRun, DumpToAFullDeviceFails) {
  for (const std::uint64_t rows : {300, 10'000}) {
    EXPECT_THROW(run_locality(sequential(rows, "/dev/full")), plumbing::OutputError) << rows;
  }
}

TEST(SingleRun, DumpIntoAMissingDirectoryFailsAndLeavesNothing) {
  const std::string dir = ::testing::TempDir() + "/no-such-dir";
  EXPECT_THROW(run_locality(sequential(300, dir + "/keys.txt")), plumbing::OutputError);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(SingleRun, PoolOfZeroPagesIsRefused) {
  RunSpec r = sequential(100, "");
  r.pool.pages = 0;
  EXPECT_THROW(run_locality(r), Error);
}

// The cap was 255 bytes; InnoDB stores records up to half a page in-page.
TEST(SingleRun, PayloadsUpToTheInPageLimitRunAndBeyondAreRefusedWithTheReason) {
  RunSpec r = sequential(2'000, "");
  r.payload_bytes = 1000;
  EXPECT_EQ(run_locality(r).metrics.rows, 2'000u);
  r.payload_bytes = max_payload_bytes(8);
  EXPECT_EQ(run_locality(r).metrics.leaf_pages, 1'001u);  // two records a page
  r.payload_bytes = max_payload_bytes(8) + 1;
  try {
    run_locality(r);
    ADD_FAILURE() << "a payload beyond the in-page limit ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("off-page"), std::string::npos) << e.what();
  }
}

TEST(SingleRun, PayloadColumnsAreBinary255AndTheRest) {
  EXPECT_EQ(sql::payload_columns(0), std::vector<int>{});
  EXPECT_EQ(sql::payload_columns(200), std::vector<int>{200});
  EXPECT_EQ(sql::payload_columns(510), (std::vector<int>{255, 255}));
  EXPECT_EQ(sql::payload_columns(1000), (std::vector<int>{255, 255, 255, 235}));
}

// UUIDv1's first field is the low 32 bits of its 100-ns time, which wrap every
// 429.5 s. At 50 IDs per ms (and the old floor of 1 per ms) a run of this size spans seconds of
// generator time, inside one wrap, so v1 looked as ordered as v6 (91 %). At 10 IDs per
// simulated second (--rate 0.01) 20,000 rows span 33 minutes, ~4.7 wraps: v1 scatters (evenly
// spaced: 65 %; Poisson arrivals: 38 %), v6 still appends (91 %). One writer, key-only
// BINARY(16), the InnoDB model (real InnoDB gives the same pages: see README).
double leaf_fill_at(const char* variant, double rate, Arrival arrival) {
  RunSpec r;
  r.stream.variant = variant;
  r.stream.rows = 20'000;
  r.stream.rate = rate;
  r.stream.arrival = arrival;
  return run_locality(r).metrics.avg_leaf_fill.value_or(-1);
}

TEST(SingleRun, UuidV1ScattersOverManyTimeLowWrapsWhileV6Appends) {
  for (const Arrival a : {Arrival::round_robin, Arrival::poisson}) {
    EXPECT_LE(leaf_fill_at("uuidv1", 0.01, a), 0.70) << name_of(a);
    EXPECT_GE(leaf_fill_at("uuidv6", 0.01, a), 0.90) << name_of(a);
  }
}

}  // namespace
}  // namespace idbench::locality
