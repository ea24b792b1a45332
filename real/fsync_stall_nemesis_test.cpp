// fsync_stall_nemesis_test.cpp — the fsync stall on a real redis-server with appendfsync
// everysec (skipped without Redis): with its fsync thread held, Redis soon has an fsync it
// cannot finish and postpones writing what it acknowledged (INFO persistence), and a release
// ends that; a freeze stops the whole server with no thread held, so a kill -9 reaps it at
// once; a thread the server does not have, or a verb the nemesis does not play, fails.
#include "real/fsync_stall_nemesis.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"
#include "real/redis_server.hpp"

namespace idbench::real {
namespace {

RedisSettings everysec() {
  RedisSettings s;
  s.persistence = RedisPersistence::aof_everysec;
  return s;
}

bool redis_installed() { return !plumbing::find_program("redis-server").empty(); }

std::string info(RedisServer& redis, const std::string& key) {
  return redis_info_field(redis, "persistence", key);
}

char state_of(pid_t pid, pid_t tid) {
  std::ifstream in(fmt::format("/proc/{}/task/{}/stat", pid, tid));
  std::string line;
  std::getline(in, line);
  return line[line.rfind(')') + 2];
}

// INCRs until INFO persistence's `key` reads `value`, at most 5 s; true when it did.
bool incr_until(RedisServer& redis, const std::string& key, const std::string& value) {
  const std::int64_t until = plumbing::monotonic_ns() + 5'000'000'000;
  while (plumbing::monotonic_ns() < until) {
    redis.query("INCR ids");
    if (info(redis, key) == value) return true;
    ::usleep(20'000);
  }
  return false;
}

TEST(FsyncStallNemesis, AHeldFsyncThreadMakesRedisPostponeItsWritesAndAReleaseEndsIt) {
  if (!redis_installed()) GTEST_SKIP() << "redis-server is not installed";
  RedisServer redis(everysec());
  fault::Timeline t("test", "stall", nullptr);
  FsyncStallNemesis stall(redis, "bio_aof_fsync");
  EXPECT_EQ(stall.kind(), "fsync");
  stall.invoke({.op = "stall", .kind = "fault", .what = "fsync stalled"}, t);
  ASSERT_NE(stall.held(), 0);
  EXPECT_EQ(state_of(redis.pid(), stall.held()), 't');
  ASSERT_TRUE(incr_until(redis, "aof_pending_bio_fsync", "1")) << redis.log_tail();
  redis.query("INCR ids");
  EXPECT_NE(info(redis, "aof_buffer_length"), "0");  // acknowledged, not written
  stall.invoke({.op = "release", .kind = "fault", .what = "the disk answers"}, t);
  EXPECT_EQ(stall.held(), 0);
  EXPECT_TRUE(incr_until(redis, "aof_pending_bio_fsync", "0"));
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[0].what, "fsync stalled");
}

TEST(FsyncStallNemesis, AFrozenServerHoldsNoThreadAndAKillReapsItAtOnce) {
  if (!redis_installed()) GTEST_SKIP() << "redis-server is not installed";
  RedisServer redis(everysec());
  fault::Timeline t("test", "stall", nullptr);
  FsyncStallNemesis stall(redis, "bio_aof_fsync");
  stall.invoke({.op = "stall", .kind = "fault", .what = "fsync stalled"}, t);
  const pid_t pid = redis.pid();
  stall.invoke({.op = "freeze", .kind = "harness", .what = "frozen"}, t);
  EXPECT_EQ(stall.held(), 0);
  EXPECT_EQ(state_of(pid, pid), 'T');
  const std::int64_t before = plumbing::monotonic_ns();
  redis.kill9();
  EXPECT_FALSE(redis.running());
  EXPECT_LT(plumbing::monotonic_ns() - before, 3'000'000'000);  // not the 10 s reap limit
}

TEST(FsyncStallNemesis, AThreadTheServerDoesNotHaveOrAVerbItDoesNotPlayFails) {
  if (!redis_installed()) GTEST_SKIP() << "redis-server is not installed";
  RedisServer redis(everysec());
  fault::Timeline t("test", "stall", nullptr);
  FsyncStallNemesis wrong(redis, "no_such_thread");
  EXPECT_THROW(wrong.invoke({.op = "stall", .kind = "fault", .what = "x"}, t), Error);
  FsyncStallNemesis stall(redis, "bio_aof_fsync");
  EXPECT_THROW(stall.invoke({.op = "pause", .kind = "fault", .what = "x"}, t), std::logic_error);
  EXPECT_THROW(stall.invoke({.op = "freeze", .kind = "fault", .what = "x"}, t), std::logic_error);
  EXPECT_TRUE(t.history().empty());
}

}  // namespace
}  // namespace idbench::real
