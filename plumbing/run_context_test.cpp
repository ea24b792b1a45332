// run_context_test.cpp — the commit and its dirty marker, from the build or the environment.
#include "plumbing/run_context.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace idbench::plumbing {
namespace {

class CommitOf : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("IDBENCH_COMMIT");
    ::unsetenv("IDBENCH_DIRTY");
  }
  void TearDown() override { SetUp(); }
  static CommitInfo built() { return {"0123456789abcdef0123456789abcdef01234567", true}; }
};

TEST_F(CommitOf, TheEnvironmentOverridesTheBuildAndDirtyIsABoolean) {
  ::setenv("IDBENCH_COMMIT", "abc123", 1);
  EXPECT_EQ(commit_of(built()).commit, "abc123");
  EXPECT_FALSE(commit_of(built()).dirty);  // the build's marker belongs to the build's commit
  for (const char* yes : {"1", "true", "YES", "maybe"}) {
    ::setenv("IDBENCH_DIRTY", yes, 1);
    EXPECT_TRUE(commit_of(built()).dirty) << yes;
  }
  for (const char* no : {"0", "false", "No"}) {
    ::setenv("IDBENCH_DIRTY", no, 1);
    EXPECT_FALSE(commit_of(built()).dirty) << no;
  }
}

TEST_F(CommitOf, ReadsTheOldSuffixSpellingsAsTheMarker) {
  for (const char* old : {"abc123-dirty", "abc123+dirty"}) {
    ::setenv("IDBENCH_COMMIT", old, 1);
    const CommitInfo c = commit_of(built());
    EXPECT_EQ(c.commit, "abc123");
    EXPECT_TRUE(c.dirty);
  }
  ::setenv("IDBENCH_DIRTY", "0", 1);  // an explicit marker wins
  EXPECT_FALSE(commit_of(built()).dirty);
}

TEST_F(CommitOf, WithoutTheEnvironmentIsWhatTheBuildCompiled) {
  const CommitInfo c = commit_of(built());
  EXPECT_EQ(c.commit, built().commit);
  EXPECT_TRUE(c.dirty);
  ::setenv("IDBENCH_DIRTY", "0", 1);
  EXPECT_FALSE(commit_of(built()).dirty);
}

TEST_F(CommitOf, IsUnknownInAProgramThatDoesNotLinkTheBuildsAnswer) {
  // This test links idbench_plumbing only: the weak default answers.
  EXPECT_EQ(built_commit().commit, "unknown");
  EXPECT_FALSE(built_commit().dirty);
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
