#include "check/checker.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

namespace idbench {
namespace {

IdStream stream64(std::string name, std::vector<std::uint64_t> ids) {
  IdStream s;
  s.name = std::move(name);
  s.ids64 = std::move(ids);
  return s;
}

TEST(RadixSort, AgreesWithStdSort) {
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> keys(100'000);
  for (auto& k : keys) k = rng();
  keys[7] = keys[99] = 0;  // ties and extremes
  keys[8] = ~0ULL;
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  radix_sort(keys);
  EXPECT_EQ(keys, expected);

  std::vector<Id> wide(50'000);
  for (auto& k : wide) k = Id{rng() & 0xFF, rng()};  // many equal hi halves
  auto wide_expected = wide;
  std::sort(wide_expected.begin(), wide_expected.end());
  radix_sort(wide);
  EXPECT_EQ(wide, wide_expected);
}

TEST(Checker, CleanStreamsHaveNothingToReport) {
  const std::vector<IdStream> s{stream64("a", {1, 2, 3}), stream64("b", {4, 5, 6})};
  const CheckReport r = check_streams(s);
  EXPECT_EQ(r.total, 6u);
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_EQ(r.order_violations(), 0u);
}

TEST(Checker, FindsAPlantedDuplicateAcrossStreamsAndLocatesIt) {
  const std::vector<IdStream> s{stream64("a", {1, 2, 30}), stream64("b", {4, 30, 6})};
  const CheckReport r = check_streams(s);
  EXPECT_EQ(r.duplicates, 1u);
  ASSERT_EQ(r.examples.size(), 1u);
  EXPECT_EQ(r.examples[0].id, Id::from_u64(30));
  EXPECT_EQ(r.examples[0].occurrences, 2u);
  EXPECT_EQ(r.examples[0].places[0].stream, 0u);
  EXPECT_EQ(r.examples[0].places[0].index, 2u);
  EXPECT_EQ(r.examples[0].places[1].stream, 1u);
  EXPECT_EQ(r.examples[0].places[1].index, 1u);
}

TEST(Checker, CountsEveryRepeatAndBoundsTheExamples) {
  std::vector<std::uint64_t> ids;
  for (std::uint64_t v = 0; v < 10; ++v) ids.insert(ids.end(), {v, v, v});
  const std::vector<IdStream> s{stream64("a", ids)};
  const CheckReport r = check_streams(s, 3);
  EXPECT_EQ(r.duplicates, 20u);  // 30 IDs, 10 distinct
  EXPECT_EQ(r.examples.size(), 3u);
}

TEST(Checker, FindsAPlantedOutOfOrderIdPerStream) {
  const std::vector<IdStream> s{stream64("a", {1, 3, 2, 4}), stream64("b", {1, 2, 3})};
  const CheckReport r = check_streams(s);
  EXPECT_EQ(r.duplicates, 3u);  // 1, 2, 3 appear in both streams
  EXPECT_EQ(r.streams[0].order_violations, 1u);
  EXPECT_EQ(r.streams[0].first_violation, 2u);
  EXPECT_EQ(r.streams[1].order_violations, 0u);
}

TEST(Checker, FindsDuplicateUuids) {
  IdStream s;
  s.width = IdWidth::bits128;
  s.ids128 = {Id{1, 2}, Id{1, 3}, Id{1, 2}};
  const CheckReport r = check_streams(std::vector<IdStream>{s});
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.examples[0].id, (Id{1, 2}));
}

class IdFiles : public ::testing::Test {
 protected:
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("idbench-check-test-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

TEST_F(IdFiles, MalformedLineNamesFileAndLine) {
  const std::string path = write("bad", "1\n2\nabc\n");
  try {
    read_id_file(path, FileFormat::text);
    FAIL();
  } catch (const IdFileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad:3"), std::string::npos) << e.what();
  }
}

TEST_F(IdFiles, UuidFileRejectsADecimalLine) {
  const std::string path = write("mixed", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n12\n");
  EXPECT_THROW(read_id_file(path, FileFormat::text), IdFileError);
}

TEST_F(IdFiles, WriterLeavesNothingBehindWithoutCommit) {
  const std::string path = (dir / "out").string();
  {
    IdFileWriter w(path, FileFormat::text, IdWidth::bits64);
    const std::vector<Id> ids{Id::from_u64(1)};
    w.write(ids);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST_F(IdFiles, TextAndBinaryRoundTrip) {
  const std::vector<Id> ids{Id::from_uuid(*Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")),
                            Id{5, 6}};
  for (FileFormat f : {FileFormat::text, FileFormat::binary}) {
    const std::string path = (dir / "rt").string();
    IdFileWriter w(path, f, IdWidth::bits128);
    w.write(ids);
    w.commit();
    const IdStream s = read_id_file(path, f, IdWidth::bits128);
    EXPECT_EQ(s.ids128, ids);
  }
}

}  // namespace
}  // namespace idbench
