// engine_test.cpp — generate's engine in-process: every ID of every thread arrives once, exec
// instance k writes node + k's IDs, and each way a run ends (refusal, program failure, error)
// commits what it should and leaves nothing else. A signal: interrupt_test.cpp.
#include "generate/engine.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "generate/sink.hpp"
#include "generate/test_files.hpp"
#include "generators/errors.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::generate {
namespace {

using namespace idbench::generate::test_files;

// "first".."first + n - 1", one a line.
std::vector<std::string> counting(std::uint64_t first, std::uint64_t n) {
  std::vector<std::string> lines;
  for (std::uint64_t i = 0; i < n; ++i) lines.push_back(std::to_string(first + i));
  return lines;
}

// Counts up from IDBENCH_NODE_ID * 1000000, n IDs per request.
constexpr const char* kCounter =
    "i=$((IDBENCH_NODE_ID * 1000000))\n"
    "while read n; do\n"
    "  j=0; while [ $j -lt $n ]; do i=$((i+1)); echo $i; j=$((j+1)); done\n"
    "done\n";

class GenerateEngineTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  // Writes `body` as an executable /bin/sh script; returns its path.
  std::string script(const std::string& name, const std::string& body) const {
    const std::string file = path(name);
    std::ofstream(file) << "#!/bin/sh\n" << body;
    ::chmod(file.c_str(), 0755);
    return file;
  }
  static GenerateOptions exec_options(const std::string& command, std::uint64_t batch) {
    GenerateOptions o;
    o.exec.emplace();
    o.exec->command = command;
    o.exec->batch = batch;
    o.exec->timeout_ms = 5'000;
    return o;
  }
  // A directory of its own for outputs, so that its listing shows only what a run left.
  std::string out_dir(const std::string& name) const {
    std::filesystem::create_directory(path(name));
    return path(name);
  }
  plumbing::TempDir dir_{"idbench-generate-engine-test"};
};

// The count not a multiple of the threads: the remainder goes to the first threads, and every
// ID arrives once, whichever variant the threads share.
TEST_F(GenerateEngineTest, EveryIdOfEveryThreadArrivesOnceAndIsCounted) {
  for (const char* variant : {"mutex", "cas", "thread-local", "uuidv7"}) {
    SCOPED_TRACE(variant);
    GenerateOptions o;
    o.variant = variant;
    o.threads = 4;
    o.count = 100'003;
    o.out = path(std::string(variant) + ".txt");
    const GenerateResult r = run_generate(o);
    EXPECT_EQ(r.issued, 100'003u);
    ASSERT_EQ(r.threads.size(), 4u);
    for (unsigned t = 0; t < 4; ++t) EXPECT_EQ(r.threads[t].issued, t < 3 ? 25'001u : 25'000u);
    EXPECT_EQ(r.refusal, "");
    EXPECT_EQ(r.program_error, "");
    const std::vector<std::string> lines = lines_of(o.out);
    EXPECT_EQ(lines.size(), 100'003u);
    EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), 100'003u);
  }
}

TEST_F(GenerateEngineTest, AnOutDirSplitsTheCountAcrossTheThreadFiles) {
  GenerateOptions o;
  o.variant = "cas";
  o.threads = 3;
  o.count = 10;
  o.format = FileFormat::binary;
  o.out_dir = out_dir("bin");
  EXPECT_EQ(run_generate(o).issued, 10u);
  EXPECT_EQ(names_in(o.out_dir),
            (std::vector<std::string>{"thread-0.bin", "thread-1.bin", "thread-2.bin"}));
  EXPECT_EQ(read_file(o.out_dir + "/thread-0.bin").size(), 4u * 8);
  EXPECT_EQ(read_file(o.out_dir + "/thread-1.bin").size(), 3u * 8);
  EXPECT_EQ(read_file(o.out_dir + "/thread-2.bin").size(), 3u * 8);
}

TEST_F(GenerateEngineTest, NoIdsIsAnEmptyFileCommitted) {
  GenerateOptions o;
  o.variant = "mutex";
  o.count = 0;
  o.out = path("empty.txt");
  EXPECT_EQ(run_generate(o).issued, 0u);
  EXPECT_TRUE(std::filesystem::exists(o.out));
  EXPECT_EQ(read_file(o.out), "");
}

// Instance k has node id node + k, and its IDs land in thread-k.txt, every run.
TEST_F(GenerateEngineTest, ExecThreadKWritesTheIdsOfInstanceNodePlusK) {
  const std::string counter = script("counter", kCounter);
  for (int run = 0; run < 3; ++run) {
    GenerateOptions o = exec_options(counter, 10);
    o.generator.node = 5;
    o.threads = 3;
    o.count = 30;
    o.out_dir = out_dir("threads-" + std::to_string(run));
    const GenerateResult r = run_generate(o);
    EXPECT_EQ(r.issued, 30u);
    for (unsigned k = 0; k < 3; ++k) {
      EXPECT_EQ(lines_of(thread_file(o.out_dir, k, FileFormat::text)),
                counting((5 + k) * 1'000'000 + 1, 10))
          << "run " << run << ", thread " << k;
    }
  }
}

// One output: instance 0's block, then instance 1's, then instance 2's, each in its order.
TEST_F(GenerateEngineTest, ExecOneOutputHoldsTheInstancesInThreadOrder) {
  GenerateOptions o = exec_options(script("counter", kCounter), 7);
  o.generator.node = 1;
  o.threads = 3;
  o.count = 60;
  o.out = path("ids.txt");
  run_generate(o);
  std::vector<std::string> want;
  for (unsigned k = 0; k < 3; ++k) {
    const std::vector<std::string> block = counting((1 + k) * 1'000'000 + 1, 20);
    want.insert(want.end(), block.begin(), block.end());
  }
  EXPECT_EQ(lines_of(o.out), want);
}

// The program answers its first request well and prints a bad line in its second: the IDs
// before it are committed, whole lines, and the failure is returned, not thrown.
TEST_F(GenerateEngineTest, AProgramFailureKeepsTheIdsBeforeItAndSaysWhy) {
  const std::string bad =
      script("bad", "read n; for i in 1 2 3 4 5; do echo $i; done; read n; echo 6; echo 'x y'\n");
  GenerateOptions o = exec_options(bad, 5);
  o.count = 20;
  o.out = path("kept.txt");
  const GenerateResult r = run_generate(o);
  EXPECT_EQ(r.issued, 5u);
  EXPECT_NE(r.program_error.find("program '" + bad + "'"), std::string::npos) << r.program_error;
  EXPECT_NE(r.program_error.find("line 7 of its output is not an ID: 'x y'"), std::string::npos)
      << r.program_error;
  EXPECT_EQ(r.refusal, "");
  EXPECT_EQ(read_file(o.out), "1\n2\n3\n4\n5\n");
}

// A wall clock that moves 1 µs a read and steps back 10 s for good after `good_reads` reads.
class SteppingBackClock final : public Clock {
 public:
  explicit SteppingBackClock(std::int64_t good_reads) : good_reads_(good_reads) {}
  std::int64_t wall_ns() const override {
    // Relaxed: only the count of reads matters, not their order against other memory.
    const std::int64_t n = reads_.fetch_add(1, std::memory_order_relaxed);
    return 1'700'000'000'000'000'000 + n * 1'000 - (n >= good_reads_ ? 10'000'000'000 : 0);
  }
  std::int64_t steady_ns() const override { return reads_.load(std::memory_order_relaxed); }

 private:
  std::int64_t good_reads_;
  mutable std::atomic<std::int64_t> reads_{0};
};

// Both threads are refused once the clock steps back: what they issued before is written and
// committed, and the refusal is returned.
TEST_F(GenerateEngineTest, ARefusalCommitsWhatWasIssuedBeforeIt) {
  GenerateOptions o;
  o.variant = "mutex";
  o.generator.clock = std::make_shared<SteppingBackClock>(5'000);
  o.threads = 2;
  o.count = 100'000;
  o.out = path("refused.txt");
  const GenerateResult r = run_generate(o);
  EXPECT_NE(r.refusal, "");
  for (const ThreadOutcome& t : r.threads) EXPECT_NE(t.refusal, "");
  EXPECT_GT(r.issued, 0u);
  EXPECT_LT(r.issued, 100'000u);
  const std::vector<std::string> lines = lines_of(o.out);
  EXPECT_EQ(lines.size(), r.issued);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), r.issued);
}

// Thread 1 of thread-local needs node id 1024, which twitter cannot hold: the error is thrown,
// the old file stays, and no temp file is left beside it.
TEST_F(GenerateEngineTest, AnErrorInAThreadCommitsNothingAndLeavesNothing) {
  const std::string dir = out_dir("error");
  std::ofstream(dir + "/ids.txt") << "old\n";
  GenerateOptions o;
  o.variant = "thread-local";
  o.generator.node = 1023;
  o.threads = 8;
  o.count = 800'000;
  o.out = dir + "/ids.txt";
  EXPECT_THROW(run_generate(o), NodeError);
  EXPECT_EQ(read_file(o.out), "old\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"ids.txt"});
}

TEST_F(GenerateEngineTest, AnOutputThatCannotBeWrittenIsAnErrorNamingTheFile) {
  GenerateOptions o;
  o.variant = "cas";
  o.threads = 2;
  o.count = 100'000;
  o.out = "/dev/full";
  std::string message;
  try {
    run_generate(o);
  } catch (const plumbing::OutputError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "cannot write /dev/full: No space left on device");

  o.out.clear();
  o.out_dir = out_dir("full");
  std::ofstream(o.out_dir + "/thread-0.txt") << "keep\n";
  std::filesystem::create_symlink("/dev/full", o.out_dir + "/thread-1.txt");
  message.clear();
  try {
    run_generate(o);
  } catch (const plumbing::OutputError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "cannot write " + o.out_dir + "/thread-1.txt: No space left on device");
  EXPECT_EQ(read_file(o.out_dir + "/thread-0.txt"), "keep\n");
  EXPECT_EQ(names_in(o.out_dir), (std::vector<std::string>{"thread-0.txt", "thread-1.txt"}));
}

TEST_F(GenerateEngineTest, OptionsThatDoNotFitAreRefusedBeforeAnythingRuns) {
  GenerateOptions neither;
  neither.out = path("never.txt");
  EXPECT_THROW(run_generate(neither), Error);
  GenerateOptions both = exec_options(script("counter", kCounter), 10);
  both.variant = "cas";
  both.out = path("never.txt");
  EXPECT_THROW(run_generate(both), Error);
  GenerateOptions no_threads;
  no_threads.variant = "cas";
  no_threads.threads = 0;
  no_threads.out = path("never.txt");
  EXPECT_THROW(run_generate(no_threads), Error);
  GenerateOptions too_many;
  too_many.variant = "cas";
  too_many.count = kMaxCount + 1;
  too_many.out = path("never.txt");
  EXPECT_THROW(run_generate(too_many), Error);
  EXPECT_FALSE(std::filesystem::exists(path("never.txt")));
}

}  // namespace
}  // namespace idbench::generate
