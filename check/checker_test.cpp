#include "check/checker.hpp"
#include "check/id_text.hpp"

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

TEST(Checker, CountsExtraCopiesAndDistinctDuplicatedValues) {
  // 7 seen three times and 9 twice are 3 extra copies of 2 values.
  const std::vector<IdStream> s{stream64("a", {7, 1, 7, 9}), stream64("b", {7, 9, 2})};
  const CheckReport r = check_streams(s);
  EXPECT_EQ(r.duplicates, 3u);
  EXPECT_EQ(r.duplicated_values, 2u);
  ASSERT_EQ(r.examples.size(), 2u);
  EXPECT_EQ(r.examples[0].occurrences, 3u);
  EXPECT_EQ(r.examples[1].id, Id::from_u64(9));
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
 public:
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

TEST_F(IdFiles, EmptyFileHasNoWidthInEitherOrder) {
  // An empty first file once made a UUID file a width mismatch.
  const std::string empty = write("empty", "");
  const std::string u = write("u", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n"
                                   "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n");
  for (const auto& order : {std::vector{empty, u}, std::vector{u, empty}}) {
    const CheckReport r = check_files(order, {});
    EXPECT_EQ(r.duplicates, 1u);
    EXPECT_EQ(r.width, IdWidth::bits128);
  }
}

TEST_F(IdFiles, MixedWidthsAcrossFilesAreNamed) {
  const std::string a = write("a", "1\n");
  const std::string u = write("u", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n");
  try {
    check_files({a, u}, {});
    FAIL();
  } catch (const IdFileError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 128-bit IDs but"), std::string::npos) << e.what();
  }
}

// The message for the first line of a file, from check_files.
std::string first_line_error(IdFiles& t, const std::string& content,
                             std::optional<IdWidth> width = std::nullopt) {
  const std::string path = t.write("f", content);
  try {
    CheckOptions o;
    o.width = width;
    check_files({path}, o);
  } catch (const IdFileError& e) {
    return e.what();
  }
  return "accepted";
}

TEST_F(IdFiles, EachBadFirstLineSaysWhatIsWrong) {
  // All of these once said "is not a UUID (the file's first line was)".
  const std::vector<std::pair<std::string, std::string>> cases{
      {" 1\n", "' 1' starts with whitespace"},
      {"\t1\n", "'\\t1' starts with whitespace"},
      {"1 \n", "'1 ' ends with whitespace"},
      {"-42\n", "'-42' is negative"},
      {"+1\n", "'+1' has a '+' sign"},
      {"\xEF\xBB\xBF"
       "1\n",
       "starts with a UTF-8 byte-order mark"},
      {"1\r\r\n", "control character \\r at column 2"},
      {"18446744073709551616\n", "is larger than the largest 64-bit ID"},
      {std::string(70, '0') + "\n", "has more than 20 digits"},
      {"12a\n", "'a' at column 3 is not a digit"},
      // A full-width digit (U+FF11) is 3 bytes: once "38 characters" for a 36-character UUID.
      {"01a22a9b-a04a-7634-98bb-503b7da130b\xEF\xBC\x91\n", "non-ASCII character at column 36"},
      {"12\xEF\xBC\x91\n", "non-ASCII character at column 3"},
  };
  for (const auto& [content, want] : cases) {
    const std::string got = first_line_error(*this, content);
    EXPECT_NE(got.find(want), std::string::npos) << "input " << quote_text(content) << ": " << got;
    EXPECT_NE(got.find("f:1: "), std::string::npos) << got;
  }
}

TEST_F(IdFiles, ThirtyTwoDecimalDigitsAreAmbiguousUntilTheWidthIsGiven) {
  // Once guessed as 64-bit and rejected; now named, and --id-bits 128 reads it.
  const std::string line = "12345678901234567890123456789012\n";
  EXPECT_NE(first_line_error(*this, line).find("32 decimal digits"), std::string::npos);
  EXPECT_EQ(first_line_error(*this, line, IdWidth::bits128), "accepted");
  EXPECT_NE(first_line_error(*this, line, IdWidth::bits64).find("larger than"), std::string::npos);
}

TEST_F(IdFiles, ExplicitWidthIsHonouredForText) {
  const std::string path = write("u", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n");
  CheckOptions o;
  o.width = IdWidth::bits64;
  EXPECT_THROW(check_files({path}, o), IdFileError);
}

TEST_F(IdFiles, ADirectoryIsNamedAsOne) {
  try {
    check_files({dir.string()}, {});
    FAIL();
  } catch (const IdFileError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST_F(IdFiles, CrlfLinesAreRead) {
  const std::string path = write("crlf", "1\r\n2\r\n1\r\n");
  EXPECT_EQ(check_files({path}, {}).duplicates, 1u);
}

// Above the memory budget the IDs go to partition files; the report must be
// the one the in-memory check gives, duplicates at both ends of the input found and located.
TEST_F(IdFiles, OverBudgetCheckSpillsAndReportsTheSame) {
  std::mt19937_64 rng(7);
  std::vector<Id> ids;
  for (int i = 0; i < 200'000; ++i) ids.push_back(Id::from_u64(rng() >> 1));
  ids.push_back(ids.front());  // a duplicate of the first ID, at the very end
  ids.push_back(ids[1]);
  ids.insert(ids.begin() + 2, ids[100'000]);  // and one near the start of a far one
  for (FileFormat f : {FileFormat::text, FileFormat::binary}) {
    const std::string path = (dir / "big").string();
    IdFileWriter w(path, f, IdWidth::bits64);
    w.write(ids);
    w.commit();
    CheckOptions o;
    o.format = f;
    o.memory_budget = 1 << 16;  // 64 KiB: about 2,000 IDs in memory
    const CheckReport small = check_files({path}, o);
    o.memory_budget = 1 << 30;
    const CheckReport large = check_files({path}, o);
    EXPECT_TRUE(small.spilled);
    EXPECT_FALSE(large.spilled);
    EXPECT_EQ(small.duplicates, 3u);
    EXPECT_EQ(small.duplicated_values, 3u);
    ASSERT_EQ(small.examples.size(), large.examples.size());
    for (std::size_t i = 0; i < small.examples.size(); ++i) {
      EXPECT_EQ(small.examples[i].id, large.examples[i].id);
      ASSERT_EQ(small.examples[i].places.size(), 2u);
      EXPECT_EQ(small.examples[i].places[1].index, large.examples[i].places[1].index);
    }
  }
}

TEST(DuplicateFinder, SplitsAPartitionStillOverBudgetAndFindsUuidDuplicates) {
  // 128-bit records with a budget so small that the first partitions must be split again.
  DuplicateFinder f(IdWidth::bits128, 1 << 14);
  std::mt19937_64 rng(11);
  std::vector<Id> ids;
  for (int i = 0; i < 300'000; ++i) ids.push_back(Id{rng(), rng()});
  for (const Id& id : ids) f.add(id);
  f.add(ids[123]);
  f.add(ids[123]);
  const DuplicateSummary s = f.finish(5);
  EXPECT_TRUE(s.spilled);
  EXPECT_EQ(s.duplicates, 2u);
  EXPECT_EQ(s.duplicated_values, 1u);
  ASSERT_EQ(s.examples.size(), 1u);
  EXPECT_EQ(s.examples[0].positions, (std::vector<std::uint64_t>{123, 300'000, 300'001}));
}

}  // namespace
}  // namespace idbench
