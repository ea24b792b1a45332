// sink_test.cpp — where generate's threads write: spools drained in order, one file per thread,
// nothing visible before commit, nothing left after a failure, and a failing file named.
#include "generate/sink.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "generate/test_files.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::generate {
namespace {

using namespace idbench::generate::test_files;

// IDs first .. first + n - 1, as 64-bit IDs.
std::vector<Id> ids_from(std::uint64_t first, std::uint64_t n) {
  std::vector<Id> ids;
  for (std::uint64_t i = 0; i < n; ++i) ids.push_back(Id::from_u64(first + i));
  return ids;
}

// Their text form, one a line.
std::string text_of(std::uint64_t first, std::uint64_t n) {
  std::string s;
  for (std::uint64_t i = 0; i < n; ++i) s += std::to_string(first + i) + "\n";
  return s;
}

SinkSpec one_output(const std::string& out, unsigned threads = 1) {
  SinkSpec spec;
  spec.out = out;
  spec.threads = threads;
  return spec;
}

SinkSpec one_file_each(const std::string& dir, unsigned threads,
                       FileFormat format = FileFormat::text) {
  SinkSpec spec;
  spec.out_dir = dir;
  spec.threads = threads;
  spec.format = format;
  return spec;
}

class GenerateSinkTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  plumbing::TempDir dir_{"idbench-generate-sink-test"};
};

// Drained by offset in 1 MiB reads: a spool over several reads must come back whole, in order.
TEST_F(GenerateSinkTest, ASpoolDrainsEverythingWrittenInOrder) {
  std::string written;
  Spool spool;
  for (int i = 0; i < 300; ++i) {
    std::string piece;
    for (int j = 0; j < 1000; ++j) piece += std::to_string(i * 1000 + j) + "\n";
    spool.write(piece);
    written += piece;
  }
  ASSERT_GT(written.size(), std::size_t{1} << 20);
  plumbing::OutputFile out(path("drained"));
  spool.drain_into(out);
  out.commit();
  EXPECT_TRUE(read_file(path("drained")) == written) << "not all of it, or not in order";
}

TEST_F(GenerateSinkTest, ASpoolThatCannotBeMadeIsAnErrorNamingWhere) {
  const char* was = std::getenv("TMPDIR");
  const std::string saved = was != nullptr ? was : "";
  const std::string missing = path("no-such-dir");
  ::setenv("TMPDIR", missing.c_str(), 1);
  std::string message;
  try {
    Spool spool;
  } catch (const Error& e) {
    message = e.what();
  }
  if (was != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(message, "cannot spool IDs under " + missing + ": No such file or directory");
}

// Threads write at once, each only its own part; the one output holds thread 0's IDs, then
// thread 1's, then thread 2's, whatever order the writes happened in.
TEST_F(GenerateSinkTest, OneOutputHoldsEachThreadsIdsInThreadOrder) {
  constexpr unsigned kThreads = 3;
  constexpr std::uint64_t kChunks = 200, kPerChunk = 50;
  Sink sink(one_output(path("ids.txt"), kThreads));
  std::vector<std::thread> writers;
  for (unsigned t = kThreads; t-- > 0;) {  // the last thread starts first
    writers.emplace_back([&sink, t] {
      std::string scratch;
      for (std::uint64_t c = 0; c < kChunks; ++c) {
        sink.write(t, ids_from(t * 1'000'000 + c * kPerChunk, kPerChunk), scratch);
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_FALSE(std::filesystem::exists(path("ids.txt"))) << "visible before commit";
  sink.commit();
  std::string want;
  for (unsigned t = 0; t < kThreads; ++t) want += text_of(t * 1'000'000, kChunks * kPerChunk);
  // Compared whole: a failure's diff of 1 MB of text would take minutes to print.
  EXPECT_TRUE(read_file(path("ids.txt")) == want) << "not thread 0's IDs, then 1's, then 2's";
  EXPECT_EQ(names_in(dir_.path()), std::vector<std::string>{"ids.txt"});
}

TEST_F(GenerateSinkTest, AnOutDirGivesEachThreadItsOwnFile) {
  Sink text(one_file_each(dir_.path(), 2));
  std::string scratch;
  text.write(1, ids_from(20, 2), scratch);
  text.write(0, ids_from(10, 3), scratch);
  text.commit();
  EXPECT_EQ(read_file(path("thread-0.txt")), "10\n11\n12\n");
  EXPECT_EQ(read_file(path("thread-1.txt")), "20\n21\n");

  Sink binary(one_file_each(dir_.path(), 2, FileFormat::binary));
  binary.write(0, ids_from(0x0102030405060708, 1), scratch);
  binary.commit();
  EXPECT_EQ(read_file(path("thread-0.bin")), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  EXPECT_EQ(read_file(path("thread-1.bin")), "");
  EXPECT_EQ(thread_file("d", 7, FileFormat::text), "d/thread-7.txt");
}

// An error on the way (the Sink destroyed without commit): every old file as it was, and no
// temp file left beside them.
TEST_F(GenerateSinkTest, WithoutCommitTheTargetsStayAsTheyWereAndNothingIsLeft) {
  std::ofstream(path("ids.txt")) << "old\n";
  std::ofstream(path("thread-0.txt")) << "old 0\n";
  {
    Sink one(one_output(path("ids.txt"), 2));
    Sink each(one_file_each(dir_.path(), 2));
    std::string scratch;
    for (unsigned t = 0; t < 2; ++t) {
      one.write(t, ids_from(1, 100'000), scratch);
      each.write(t, ids_from(1, 100'000), scratch);
    }
  }
  EXPECT_EQ(read_file(path("ids.txt")), "old\n");
  EXPECT_EQ(read_file(path("thread-0.txt")), "old 0\n");
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"ids.txt", "thread-0.txt"}));
}

// A device that takes no bytes: an error naming the file and the cause, never a short file.
TEST_F(GenerateSinkTest, AnOutputThatCannotBeWrittenIsAnErrorNamingTheFile) {
  std::string message;
  try {
    Sink sink(one_output("/dev/full"));
    std::string scratch;
    sink.write(0, ids_from(1, 10), scratch);
    sink.commit();
  } catch (const plumbing::OutputError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "cannot write /dev/full: No space left on device");
}

// One failing file of an out dir: none is committed, the others keep their old content.
TEST_F(GenerateSinkTest, OneUnwritableFileOfAnOutDirCommitsNone) {
  std::ofstream(path("thread-0.txt")) << "keep\n";
  std::filesystem::create_symlink("/dev/full", path("thread-1.txt"));
  std::string message;
  try {
    Sink sink(one_file_each(dir_.path(), 2));
    std::string scratch;
    sink.write(0, ids_from(1, 10), scratch);
    sink.write(1, ids_from(1, 10), scratch);
    sink.commit();
  } catch (const plumbing::OutputError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "cannot write " + path("thread-1.txt") + ": No space left on device");
  EXPECT_EQ(read_file(path("thread-0.txt")), "keep\n");
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"thread-0.txt", "thread-1.txt"}));
}

// A run killed between link and rename leaves `.<name>.tmp-<pid>-<n>`; the next Sink in that
// directory removes it (its writer is gone), for one output and for an out dir.
TEST_F(GenerateSinkTest, ADeadWritersTempFileIsSweptAtTheStart) {
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = path(".ids.txt.tmp-" + std::to_string(dead) + "-0");
  std::ofstream(stale) << "half\n";
  Sink one(one_output(path("ids.txt")));
  EXPECT_FALSE(std::filesystem::exists(stale));

  std::ofstream(stale) << "half\n";
  Sink each(one_file_each(dir_.path(), 1));
  EXPECT_FALSE(std::filesystem::exists(stale));
}

}  // namespace
}  // namespace idbench::generate
