// mariadb_server_test.cpp — MariadbServer: settings read back, crash and recovery, a restored
// copy whose counter goes back, the server's environment, and nothing left behind. One server
// is shared by the file (each start costs seconds); skipped when MariaDB is not installed.
#include "real/mariadb_server.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::real {
namespace {

namespace fs = std::filesystem;

bool installed() { return !plumbing::find_program("mariadbd").empty(); }

std::string dir_of(const MariadbServer& db) { return fs::path(db.socket()).parent_path().string(); }

pid_t pid_of(const MariadbServer& db) {
  return static_cast<pid_t>(std::stol(plumbing::read_text_file(dir_of(db) + "/mysqld.pid")));
}

class MariadbServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!installed()) return;
    MariadbSettings s;
    s.flush_log_at_trx_commit = 2;
    s.binlog = true;
    s.autoinc_lock_mode = 1;
    s.env = {"IDBENCH_SERVER_TEST_MARKER=42"};
    db_ = std::make_unique<MariadbServer>(s);
    db_->query("CREATE DATABASE t");
    db_->query("CREATE TABLE t.c (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB");
  }
  static void TearDownTestSuite() { db_.reset(); }
  void SetUp() override {
    if (!installed()) GTEST_SKIP() << "mariadbd is not installed";
  }
  // Inserts a row and returns its id.
  static std::string insert() {
    return db_->query("INSERT INTO t.c () VALUES (); SELECT LAST_INSERT_ID()");
  }
  static std::unique_ptr<MariadbServer> db_;
};

std::unique_ptr<MariadbServer> MariadbServerTest::db_;

TEST_F(MariadbServerTest, DescribesTheSettingsItRunsWith) {
  const std::string d = db_->describe();
  EXPECT_NE(d.find("MariaDB 1"), std::string::npos) << d;
  EXPECT_NE(d.find("innodb_flush_log_at_trx_commit=2"), std::string::npos) << d;
  EXPECT_NE(d.find("log_bin=ON, sync_binlog=1"), std::string::npos) << d;
  EXPECT_NE(d.find("innodb_autoinc_lock_mode=1"), std::string::npos) << d;
  EXPECT_NE(d.find("auto_increment_increment=1, auto_increment_offset=1"), std::string::npos) << d;
  EXPECT_EQ(db_->settings().flush_log_at_trx_commit, 2);
}

TEST_F(MariadbServerTest, TheServerGetsTheExtraEnvironment) {
  const std::string env =
      plumbing::read_text_file("/proc/" + std::to_string(pid_of(*db_)) + "/environ");
  EXPECT_NE(env.find(std::string("IDBENCH_SERVER_TEST_MARKER=42") + '\0'), std::string::npos);
}

TEST_F(MariadbServerTest, Kill9ThenStartRecoversCommittedRows) {
  const std::string before = insert();
  db_->kill9();
  EXPECT_FALSE(db_->running());
  db_->start();
  EXPECT_TRUE(db_->running());
  EXPECT_EQ(db_->query("SELECT COUNT(*) FROM t.c WHERE id = " + before), "1");
  EXPECT_GT(std::stoull(insert()), std::stoull(before));
}

TEST_F(MariadbServerTest, RestoreGoesBackToTheSnapshotAndItsCounter) {
  const std::string kept = insert();
  const std::string copy = db_->snapshot();
  EXPECT_TRUE(db_->running());
  const std::string lost = insert();
  db_->stop();
  db_->restore(copy);
  db_->start();
  EXPECT_EQ(db_->query("SELECT COUNT(*) FROM t.c WHERE id = " + kept), "1");
  EXPECT_EQ(db_->query("SELECT COUNT(*) FROM t.c WHERE id = " + lost), "0");
  // The counter went back with the copy: the next row gets the lost row's id again.
  EXPECT_EQ(insert(), lost);
}

TEST_F(MariadbServerTest, TheLogTailIsTheServersLastLines) {
  const std::string all = db_->log_tail(100'000);
  EXPECT_NE(all.find("ready for connections"), std::string::npos) << all;
  const std::string tail = db_->log_tail(3);
  EXPECT_EQ(std::count(tail.begin(), tail.end(), '\n'), 2) << tail;
  EXPECT_TRUE(all.ends_with(tail)) << tail;
  EXPECT_EQ(db_->log_tail(0), "");
}

TEST_F(MariadbServerTest, RestoreRefusesARunningServer) {
  EXPECT_THROW(db_->restore(dir_of(*db_) + "/data"), Error);
}

TEST_F(MariadbServerTest, LeavesNoProcessAndNoDirectory) {
  std::string dir;
  pid_t pid = 0;
  {
    MariadbServer other({});
    dir = dir_of(other);
    pid = pid_of(other);
    EXPECT_EQ(other.query("SELECT 1"), "1");
    EXPECT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_FALSE(fs::exists(dir)) << dir;
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

// IDBENCH_MARIADB_TEMPLATE names a template directory shared by every process of a test run:
// the first server makes it, the others copy it (a planted file in it reaches their data
// directories); a template made for another mariadbd (its stamp differs) is made again.
class SharedTemplate {
 public:
  SharedTemplate()
      : dir_(fs::temp_directory_path() / fmt::format("idbench-tmpl-test-{}", getpid())) {
    const char* old = std::getenv(kMariadbTemplateEnv);
    if (old != nullptr) old_ = old;
    ::setenv(kMariadbTemplateEnv, dir_.c_str(), 1);
  }
  ~SharedTemplate() {
    if (old_) {
      ::setenv(kMariadbTemplateEnv, old_->c_str(), 1);
    } else {
      ::unsetenv(kMariadbTemplateEnv);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
    fs::remove(dir_.string() + ".lock", ec);
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  std::optional<std::string> old_;
};

TEST_F(MariadbServerTest, ServersOfATestRunCopyTheSharedTemplate) {
  SharedTemplate shared;
  { MariadbServer first({}); }
  ASSERT_TRUE(fs::is_directory(shared.dir() / "data")) << "the first server made no template";
  plumbing::write_file_atomically((shared.dir() / "data" / "planted").string(), "x");
  MariadbServer second({});
  EXPECT_TRUE(fs::exists(dir_of(second) + "/data/planted"))
      << "the second server did not copy the shared template";
}

TEST_F(MariadbServerTest, ASharedTemplateOfAnotherMariadbIsMadeAgain) {
  SharedTemplate shared;
  { MariadbServer first({}); }
  plumbing::write_file_atomically((shared.dir() / "data" / "planted").string(), "x");
  plumbing::write_file_atomically((shared.dir() / "stamp").string(), "another mariadbd\n");
  MariadbServer second({});
  EXPECT_FALSE(fs::exists(dir_of(second) + "/data/planted")) << "a stale template was copied";
  EXPECT_NE(plumbing::read_text_file((shared.dir() / "stamp").string()), "another mariadbd\n");
}

}  // namespace
}  // namespace idbench::real
