// history_test.cpp — a node's record file read back whole, a cut record dropped; a live reader
// follows a file as it grows and never takes half a record.
#include "fault/history.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "plumbing/temp_dir.hpp"

namespace idbench::fault {
namespace {

void write(const std::string& path, const std::vector<Record>& records, std::size_t cut_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(records.data(), sizeof(Record), records.size(), f);
  std::fclose(f);
  if (cut_bytes > 0) {
    std::filesystem::resize_file(path, records.size() * sizeof(Record) - cut_bytes);
  }
}

TEST(History, RecordsReadBackInTheOrderWritten) {
  plumbing::TempDir dir("idbench-history-test");
  const std::string path = dir.path() + "/" + record_file_name(2, 1, 0);
  EXPECT_EQ(record_file_name(2, 1, 0), "node-2.inc-1.thread-0.rec");
  const std::vector<Record> written = {
      {.hi = 0, .lo = 17, .true_ns = 100, .mono_ns = 7, .call_us = 3,
       .kind = kind_word(RecordKind::id)},
      {.true_ns = 200, .mono_ns = 107, .kind = kind_word(RecordKind::failed_request),
       .detail = 1},
  };
  write(path, written, 0);
  const std::vector<Record> got = read_records(path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].lo, 17u);
  EXPECT_EQ(got[0].mono_ns, 7);
  EXPECT_TRUE(is(got[0], RecordKind::id));
  EXPECT_TRUE(is(got[1], RecordKind::failed_request));
  EXPECT_FALSE(is(got[1], RecordKind::refusal));
  EXPECT_EQ(got[1].detail, 1);
}

TEST(History, AKillCutsTheLastRecordAndOnlyThatOneIsLost) {
  plumbing::TempDir dir("idbench-history-test");
  const std::string path = dir.path() + "/" + record_file_name(0, 0, 0);
  write(path, {{.lo = 1}, {.lo = 2}, {.lo = 3}}, 5);
  const std::vector<Record> got = read_records(path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].lo, 2u);
}

TEST(History, ACallsDurationIsWholeMicrosecondsSaturatingAtBothEnds) {
  EXPECT_EQ(call_us(1'000, 3'999), 2u);
  EXPECT_EQ(call_us(5'000, 1'000), 0u);  // a clock read out of order is no call at all
  EXPECT_EQ(call_us(0, std::int64_t{1} << 62), UINT32_MAX);
  EXPECT_EQ(messages_file_name(3, 1), "node-3.inc-1.messages");
}

TEST(History, AFileANodeNeverMadeReadsAsNothing) {
  plumbing::TempDir dir("idbench-history-test");
  EXPECT_TRUE(read_records(dir.path() + "/none.rec").empty());
}

TEST(History, ALiveReaderTakesEachWholeRecordOnceAndWaitsForAHalfWrittenOne) {
  plumbing::TempDir dir("idbench-history-test");
  const std::string path = dir.path() + "/" + record_file_name(0, 0, 0);
  std::uint64_t offset = 0;
  EXPECT_TRUE(read_new_records(path, offset).empty());  // not made yet
  EXPECT_EQ(offset, 0u);
  const Record r[3] = {{.lo = 1}, {.lo = 2}, {.lo = 3}};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(&r[0], sizeof(Record), 1, f);
  std::fwrite(&r[1], 1, 12, f);  // the writer is in the middle of record 2
  std::fflush(f);
  std::vector<Record> got = read_new_records(path, offset);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].lo, 1u);
  EXPECT_EQ(offset, sizeof(Record));
  EXPECT_TRUE(read_new_records(path, offset).empty());
  std::fwrite(reinterpret_cast<const char*>(&r[1]) + 12, 1, sizeof(Record) - 12, f);
  std::fwrite(&r[2], sizeof(Record), 1, f);
  std::fclose(f);
  got = read_new_records(path, offset);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].lo, 2u);
  EXPECT_EQ(got[1].lo, 3u);
  EXPECT_EQ(offset, 3 * sizeof(Record));
}

}  // namespace
}  // namespace idbench::fault
