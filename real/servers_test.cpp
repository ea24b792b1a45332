// servers_test.cpp — the PostgreSQL and Redis servers idbench starts and the schemes on them,
// each on a real server (skipped when it is not installed):
//   * a server states its durability; a kill -9 and a start keep what it committed (a new pid);
//   * a restore takes a PostgreSQL sequence back (the planted restore must show); one after a
//     kill -9 leaves no SysV segment behind, and a stop with a client connected is a clean
//     shutdown (no segment either);
//   * every PostgreSQL scheme answers 1 and 1,000 IDs in one round trip each, all distinct;
//     Instagram's next_id() decodes by the instagram layout to now, shard 5; the UUID
//     functions give version 1 and 4;
//   * Redis INCRBY hands out N consecutive values; a kill -9 under appendfsync always keeps
//     the counter, under RDB only it takes the counter back (values handed out again).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "external/program.hpp"
#include "generators/layout.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/postgres_cluster.hpp"
#include "plumbing/postgres_test_support.hpp"
#include "real/postgres_server.hpp"
#include "real/redis_server.hpp"
#include "real/systems.hpp"

namespace idbench::real {
namespace {

bool postgres_installed() { return !plumbing::postgres_bin_dir().empty(); }
bool redis_installed() { return !plumbing::find_program("redis-server").empty(); }

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// 1 ID, then 1,000, from the system's adapter on `run`'s servers.
std::vector<Id> ask_1_then_1000(RunningSystem& run) {
  external::Program program(run.exec_spec(), 1);
  std::vector<Id> ids;
  program.request(1, ids);
  program.request(1000, ids);
  return ids;
}

std::size_t distinct(const std::vector<Id>& ids) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (const Id& id : ids) seen.insert({id.hi, id.lo});
  return seen.size();
}

TEST(PostgresServer, StatesItsDurabilityAndKeepsCommittedRowsThroughAKill9) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  PostgresServer pg(
      PostgresSettings{.synchronous_commit = "off", .env = {}, .launcher = {}, .standby_of = {}});
  EXPECT_NE(pg.describe().find("synchronous_commit=off, fsync=on"), std::string::npos)
      << pg.describe();
  pg.query("CREATE TABLE t (x int); INSERT INTO t VALUES (7); CHECKPOINT");
  const int before = pg.pid();
  pg.kill9();
  EXPECT_FALSE(pg.running());
  pg.start();
  EXPECT_NE(pg.pid(), before);
  EXPECT_EQ(pg.query("SELECT x FROM t"), "7");
  EXPECT_NEAR(pg.clock_unix_s() * 1e3, static_cast<double>(now_ms()), 5000);
}

TEST(PostgresServer, ARestoreTakesASequenceBack) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  PostgresServer pg(PostgresSettings{});
  pg.query("CREATE SEQUENCE s; SELECT nextval('s')");
  const std::string copy = pg.snapshot();
  pg.query("SELECT nextval('s') FROM generate_series(1, 99)");
  EXPECT_EQ(pg.query("SELECT last_value FROM s"), "100");
  EXPECT_THROW(pg.restore(copy), Error);  // refuses a running server
  pg.stop();
  pg.restore(copy);
  pg.start();
  EXPECT_EQ(pg.query("SELECT last_value FROM s"), "1");
}

// A kill -9 left the server's SysV segment, keyed by its data directory's inode; a restore
// replaced that directory, after which no sweep could tell the segment was ours: it stayed
// (owner nobody, nattch 0) until a reboot.
TEST(PostgresServer, ARestoreAfterAKill9LeavesNoSegmentBehind) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  PostgresServer pg(PostgresSettings{});
  const std::string copy = pg.snapshot();
  const int shmid = plumbing::segment_named_in(pg.socket() + "/data");
  ASSERT_GE(shmid, 0);
  pg.kill9();
  EXPECT_TRUE(plumbing::segment_exists(shmid)) << "a killed server no longer leaves its segment";
  pg.restore(copy);
  EXPECT_FALSE(plumbing::segment_exists(shmid)) << "shmid " << shmid;
  pg.start();
  EXPECT_EQ(pg.query("SELECT 1"), "1");
}

// The snapshot nemesis stops the server with its clients still connected: a smart shutdown
// (SIGTERM) waited 30 s for them to leave, then killed the server, which left its segment.
TEST(PostgresServer, AStopWithAClientConnectedIsACleanShutdown) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  PostgresServer pg(PostgresSettings{});
  const int shmid = plumbing::segment_named_in(pg.socket() + "/data");
  ASSERT_GE(shmid, 0);
  plumbing::ChildSpec session;
  session.argv = {plumbing::postgres_bin_dir() + "/psql",
                  "-X",
                  "-q",
                  "-h",
                  pg.socket(),
                  "-U",
                  "idbench",
                  "-d",
                  "postgres",
                  "-c",
                  "SELECT pg_sleep(600)"};
  session.out = session.err = plumbing::Stdio::null();
  plumbing::ChildProcess client(session);
  const std::string sleeping =
      "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'";
  for (int i = 0; i < 100 && pg.query(sleeping) != "1"; ++i) ::usleep(50'000);
  ASSERT_EQ(pg.query(sleeping), "1") << "the client did not connect";
  pg.stop();
  EXPECT_FALSE(pg.running());
  EXPECT_FALSE(plumbing::segment_exists(shmid)) << "the server was killed, not shut down";
}

TEST(PostgresSchemes, EveryOneAnswersOneAndAThousandIdsAllDistinct) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  for (const RealSystem& s : real_systems()) {
    if (s.server_kind != ServerKind::postgres) continue;
    SCOPED_TRACE(s.name);
    RunningSystem run(s, ServerSettings{});
    const std::vector<Id> ids = ask_1_then_1000(run);
    ASSERT_EQ(ids.size(), 1001u);
    EXPECT_EQ(distinct(ids), 1001u);
    if (s.exec.id_time == IdTime::uuid) {
      EXPECT_EQ((ids[0].hi >> 12) & 0xf, 1u);
    }
    if (s.name == "postgres-gen-random-uuid") {
      EXPECT_EQ((ids[0].hi >> 12) & 0xf, 4u);
    }
    if (s.exec.width == IdWidth::bits64 && s.exec.id_time == IdTime::none) {
      EXPECT_EQ(ids[0].lo, 1u);  // a fresh sequence or identity starts at 1
    }
  }
}

TEST(PostgresSchemes, InstagramNextIdDecodesToNowOnShard5) {
  if (!postgres_installed()) GTEST_SKIP() << "PostgreSQL is not installed";
  RunningSystem run(*find_real_system("postgres-instagram-next-id"), ServerSettings{});
  const std::vector<Id> ids = ask_1_then_1000(run);
  const Layout instagram = Layout::parse("instagram", now_ms());
  for (const Id& id : {ids.front(), ids.back()}) {
    const LayoutFields f = instagram.decode(id.lo);
    EXPECT_EQ(f.node, 5u);
    EXPECT_NEAR(static_cast<double>(instagram.unix_ms_of_tick(f.tick)),
                static_cast<double>(now_ms()), 60'000);
  }
  EXPECT_EQ(instagram.decode(ids[0].lo).seq, 1u);  // nextval 1 % 1024
}

TEST(RedisServer, StatesEachPersistence) {
  if (!redis_installed()) GTEST_SKIP() << "redis-server is not installed";
  RedisServer always(RedisSettings{});
  EXPECT_NE(always.describe().find("appendonly=yes, appendfsync=always"), std::string::npos)
      << always.describe();
  RedisServer everysec(RedisSettings{.persistence = RedisPersistence::aof_everysec, .env = {}});
  EXPECT_NE(everysec.describe().find("appendfsync=everysec"), std::string::npos);
  RedisServer rdb(RedisSettings{.persistence = RedisPersistence::rdb, .env = {}});
  EXPECT_NE(rdb.describe().find(std::string("appendonly=no, appendfsync=everysec, save='") +
                                kRedisSavePoints + "'"),
            std::string::npos)
      << rdb.describe();
  EXPECT_NEAR(rdb.clock_unix_s() * 1e3, static_cast<double>(now_ms()), 5000);
}

// The counter after 1,001 INCRs, a kill -9 and a start under `p`.
long long counter_after_kill9(RedisPersistence p) {
  ServerSettings settings;
  settings.redis.persistence = p;
  RunningSystem run(*find_real_system("redis-incr"), settings);
  const std::vector<Id> ids = ask_1_then_1000(run);
  EXPECT_EQ(ids.front().lo, 1u);
  EXPECT_EQ(ids.back().lo, 1001u);  // INCRBY 1000: the next 1,000 values
  Server& server = *run.servers().at(0);
  const int before = server.pid();
  server.kill9();
  server.start();
  EXPECT_NE(server.pid(), before);
  const std::string value = server.query("GET ids");
  return value.empty() ? 0 : std::stoll(value);
}

TEST(RedisServer, AKill9KeepsTheCounterUnderAlwaysAndLosesItUnderRdbOnly) {
  if (!redis_installed()) GTEST_SKIP() << "redis-server is not installed";
  EXPECT_EQ(counter_after_kill9(RedisPersistence::aof_always), 1001);
  // No save point is reached in the test's second: the restarted server counts from 0 again.
  EXPECT_EQ(counter_after_kill9(RedisPersistence::rdb), 0);
}

}  // namespace
}  // namespace idbench::real
