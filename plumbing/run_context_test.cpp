// run_context_test.cpp — the commit and its dirty marker, from git or the environment.
#include "plumbing/run_context.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plumbing/temp_dir.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

class CommitOf : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("IDBENCH_COMMIT");
    ::unsetenv("IDBENCH_DIRTY");
  }
  void TearDown() override { SetUp(); }
  // Runs a git command in `dir`; false when git is missing or fails.
  static bool git(const std::string& dir, const std::string& args) {
    const std::string cmd = "git -C '" + dir + "' -c user.name=t -c user.email=t@t " + args +
                            " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
  }
};

TEST_F(CommitOf, TheEnvironmentOverridesGitAndDirtyIsABoolean) {
  ::setenv("IDBENCH_COMMIT", "abc123", 1);
  EXPECT_EQ(commit_of("").commit, "abc123");
  EXPECT_FALSE(commit_of("").dirty);
  for (const char* yes : {"1", "true", "YES", "maybe"}) {
    ::setenv("IDBENCH_DIRTY", yes, 1);
    EXPECT_TRUE(commit_of("").dirty) << yes;
  }
  for (const char* no : {"0", "false", "No"}) {
    ::setenv("IDBENCH_DIRTY", no, 1);
    EXPECT_FALSE(commit_of("").dirty) << no;
  }
}

TEST_F(CommitOf, ReadsTheOldSuffixSpellingsAsTheMarker) {
  for (const char* old : {"abc123-dirty", "abc123+dirty"}) {
    ::setenv("IDBENCH_COMMIT", old, 1);
    const CommitInfo c = commit_of("");
    EXPECT_EQ(c.commit, "abc123");
    EXPECT_TRUE(c.dirty);
  }
  ::setenv("IDBENCH_DIRTY", "0", 1);  // an explicit marker wins
  EXPECT_FALSE(commit_of("").dirty);
}

TEST_F(CommitOf, AskGitInTheSourceTreeCleanThenDirty) {
  TempDir repo("idbench-run-context-test");
  if (!git(repo.path(), "init -q")) GTEST_SKIP() << "git is not installed";
  std::ofstream(repo.path() + "/f") << "one\n";
  ASSERT_TRUE(git(repo.path(), "add f"));
  ASSERT_TRUE(git(repo.path(), "commit -q -m one"));
  std::ofstream(repo.path() + "/untracked") << "x\n";  // untracked files do not count
  CommitInfo c = commit_of(repo.path());
  EXPECT_EQ(c.commit.size(), 40u);
  EXPECT_FALSE(c.dirty);
  std::ofstream(repo.path() + "/f") << "two\n";
  c = commit_of(repo.path());
  EXPECT_EQ(c.commit.size(), 40u);
  EXPECT_TRUE(c.dirty);
  ::setenv("IDBENCH_DIRTY", "0", 1);
  EXPECT_FALSE(commit_of(repo.path()).dirty);
}

TEST_F(CommitOf, IsUnknownOutsideAGitTree) {
  TempDir plain("idbench-run-context-test");
  const CommitInfo c = commit_of(plain.path());
  EXPECT_EQ(c.commit, "unknown");
  EXPECT_FALSE(c.dirty);
  EXPECT_EQ(commit_of("").commit, "unknown");
}

TEST(RunContext, JsonCarriesEveryKeyOfTheSchemaWithItsType) {
  const nlohmann::json j = to_json(current_run_context());
  EXPECT_EQ(j.at("idbench_version"), 1);
  EXPECT_TRUE(j.at("dirty").is_boolean());
  EXPECT_TRUE(j.at("cpus").is_number_integer());
  EXPECT_GE(j.at("cpus").get<int>(), 1);
  EXPECT_TRUE(j.at("load_avg_1m").is_number());
  for (const char* key : {"commit", "build_type", "compiler", "sanitizers", "host", "os",
                          "cpu_model", "started_utc", "clock_source"}) {
    EXPECT_TRUE(j.at(key).is_string()) << key;
  }
  EXPECT_EQ(j.size(), 13u);
  EXPECT_EQ(j.at("started_utc").get<std::string>().size(), 20u);  // 2026-12-01T14:00:00Z
  EXPECT_NE(j.at("build_type"), "");
  EXPECT_EQ(&current_run_context(), &current_run_context());  // decided once
}

}  // namespace
}  // namespace idbench::plumbing
