// adapter_test.cpp — idbench-mariadb-adapter end to end: every scheme answers on a real
// server, the ticket pair alternates over two and fails over when one is killed, deadlocks are
// retried and never answered with a made-up ID, bad usage exits 2, an unreachable server
// exits 1, each request's time in the server is written when asked, the null scheme needs no
// server; RunningSystem fills in what the adapter needs; the direct client (bench/real/direct.hpp)
// runs the same SQL from threads.
// One ticket pair of servers (real/systems.hpp) is shared by the file; skipped when MariaDB is
// not installed.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/real/direct.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"
#include "real/systems.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;

struct Finished {
  int status;
  std::string err;  // its stderr
};

// One adapter process: requests in, ID lines out.
class Adapter {
 public:
  Adapter(const std::vector<std::string>& args, const std::string& sockets,
          const std::vector<std::string>& extra_env = {})
      : dir_("idbench-adapter-test") {
    std::vector<std::string> argv = {IDBENCH_MARIADB_ADAPTER};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "IDBENCH_NODE_ID=1"};
    if (!sockets.empty())
      env.push_back(std::string(socket_env(ServerKind::mariadb)) + "=" + sockets);
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    child_ = std::make_unique<plumbing::ChildProcess>(argv, env, dir_.path() + "/err");
  }
  std::vector<std::string> request(int n) {
    child_->send_line(std::to_string(n));
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      auto line = child_->read_line(plumbing::monotonic_ns() + 20 * kSecondNs);
      if (!line) break;
      ids.push_back(*line);
    }
    return ids;
  }
  Finished finish() {
    child_->close_stdin();
    const auto status = child_->wait_until(plumbing::monotonic_ns() + 20 * kSecondNs);
    return {status.value_or(-1), plumbing::read_text_file(dir_.path() + "/err")};
  }

 private:
  plumbing::TempDir dir_;
  std::unique_ptr<plumbing::ChildProcess> child_;
};

bool installed() { return !plumbing::find_program("mariadbd").empty(); }

bool all_match(const std::vector<std::string>& ids, const std::string& pattern) {
  const std::regex re(pattern);
  for (const auto& id : ids) {
    if (!std::regex_match(id, re)) return false;
  }
  return !ids.empty();
}

std::vector<unsigned long long> numbers(const std::vector<std::string>& ids) {
  std::vector<unsigned long long> out;
  for (const auto& id : ids) out.push_back(std::stoull(id));
  return out;
}

const char* const kCleanSummary = "idbench-mariadb-adapter: retries=0 deadlocks=0 failovers=0\n";

class AdapterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (installed()) pair_ = std::make_unique<RunningSystem>(
                         *find_real_system("mariadb-ticket-pair-myisam"), MariadbSettings{});
  }
  static void TearDownTestSuite() { pair_.reset(); }
  void SetUp() override {
    if (!installed()) GTEST_SKIP() << "mariadbd is not installed";
  }
  static std::string one() { return pair_->servers()[0]->socket(); }
  // What a failure shows of the servers: each one's log tail.
  static std::string logs() {
    std::string out;
    for (Server* s : pair_->servers()) out += "\nserver log, last lines:\n" + s->log_tail();
    return out;
  }
  static std::string both() { return one() + "," + pair_->servers()[1]->socket(); }
  // Runs `args` on `sockets` for two requests of 3 and checks the clean exit.
  static std::vector<std::string> six_ids(const std::vector<std::string>& args,
                                          const std::string& sockets) {
    Adapter a(args, sockets);
    auto ids = a.request(3);
    const auto more = a.request(3);
    ids.insert(ids.end(), more.begin(), more.end());
    const Finished f = a.finish();
    EXPECT_EQ(f.status, 0) << f.err << logs();
    EXPECT_EQ(f.err, kCleanSummary) << logs();
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 6u) << logs();
    return ids;
  }
  static std::unique_ptr<RunningSystem> pair_;
};

std::unique_ptr<RunningSystem> AdapterTest::pair_;

bool increasing(const std::vector<unsigned long long>& v) {
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) return false;
  }
  return !v.empty();
}

TEST_F(AdapterTest, CountersIncreaseOnOneServer) {
  for (const auto& scheme : {"auto-increment", "sequence", "uuid-short", "ticket-update"}) {
    const auto ids = six_ids({scheme}, one());
    EXPECT_TRUE(all_match(ids, "[1-9][0-9]*")) << scheme;
    EXPECT_TRUE(increasing(numbers(ids))) << scheme;
  }
}

TEST_F(AdapterTest, UuidIsVersion1Text) {
  const auto ids = six_ids({"uuid"}, one());
  EXPECT_TRUE(all_match(ids, "[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"))
      << ids.front();
}

TEST_F(AdapterTest, TicketPairAlternatesOddAndEven) {
  for (const auto& engine : {"myisam", "innodb"}) {
    const auto ids = numbers(six_ids({"ticket-pair", "--engine", engine}, both()));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      EXPECT_EQ(ids[i] % 2, i % 2 == 0 ? 1u : 0u) << engine << " id " << ids[i];
    }
  }
}

TEST_F(AdapterTest, TicketPairServesEveryRequestWhenOneServerIsKilled) {
  Adapter a({"ticket-pair"}, both());
  EXPECT_EQ(a.request(4).size(), 4u);
  pair_->servers()[1]->kill9();
  const auto during = numbers(a.request(10));
  pair_->servers()[1]->start();
  EXPECT_EQ(during.size(), 10u) << logs();
  for (const auto id : during) EXPECT_EQ(id % 2, 1u) << id;  // all from the odd server
  const Finished f = a.finish();
  EXPECT_EQ(f.status, 0) << f.err << logs();
  EXPECT_TRUE(std::regex_match(f.err, std::regex("idbench-mariadb-adapter: retries=1 deadlocks=0 "
                                                 "failovers=5\n")))
      << f.err;
}

// Concurrent REPLACE INTO on an InnoDB unique key deadlocks: the adapter retries, and every ID
// it hands out is a real one. Rounds of several adapters run until the summed counters show a
// deadlock or a lock wait timeout (a round that shows neither proves nothing about them).
TEST_F(AdapterTest, UnderDeadlocksEveryIdIsRealAndNoneRepeats) {
  constexpr int kClients = 16;
  constexpr int kPerRequest = 50;
  const std::int64_t deadline = plumbing::monotonic_ns() + 90 * kSecondNs;
  std::set<std::string> seen;
  std::vector<std::string> zeros, repeats;
  unsigned long long locked = 0, ids = 0;
  int rounds = 0;
  while (locked == 0 && plumbing::monotonic_ns() < deadline) {
    ++rounds;
    struct Client {
      std::vector<std::string> ids;
      Finished finished;
    };
    std::vector<Client> clients(kClients);
    {
      std::vector<std::jthread> threads;
      for (Client& c : clients) {
        threads.emplace_back([&c, this] {
          Adapter a({"ticket-pair", "--engine", "innodb"}, both());
          for (int r = 0; r < 5; ++r) {
            const auto more = a.request(kPerRequest);
            c.ids.insert(c.ids.end(), more.begin(), more.end());
          }
          c.finished = a.finish();
        });
      }
    }  // joined; the checks below run on this thread (std::regex is not for several at once)
    const std::regex counters("retries=([0-9]+) deadlocks=([0-9]+) failovers=0");
    const std::regex positive("[1-9][0-9]*");
    for (const Client& c : clients) {
      const Finished& f = c.finished;
      std::smatch m;
      const bool summary = std::regex_search(f.err, m, counters);
      EXPECT_EQ(f.status, 0) << f.err << logs();
      EXPECT_TRUE(summary) << f.err;
      EXPECT_EQ(c.ids.size(), 5u * kPerRequest) << f.err << logs();
      if (summary) locked += std::stoull(m[1]) + std::stoull(m[2]);
      for (const auto& id : c.ids) {
        ++ids;
        if (!std::regex_match(id, positive)) zeros.push_back(id);
        if (!seen.insert(id).second) repeats.push_back(id);
      }
    }
  }
  EXPECT_GT(locked, 0u) << rounds << " rounds of " << kClients
                        << " adapters showed no deadlock or lock wait";
  EXPECT_TRUE(zeros.empty()) << zeros.size() << " IDs that are not a positive number, first '"
                             << zeros.front() << "', among " << ids;
  EXPECT_TRUE(repeats.empty()) << repeats.size() << " IDs handed out twice, first "
                               << repeats.front() << ", among " << ids;
}

TEST_F(AdapterTest, WritesEachRequestsTimeInTheServerWhenAsked) {
  plumbing::TempDir dir("idbench-adapter-times");
  const std::string times = dir.path() + "/times";
  Adapter a({"auto-increment"}, one(), {"IDBENCH_SYSTEM_TIMES=" + times});
  EXPECT_EQ(a.request(3).size(), 3u);
  EXPECT_EQ(a.request(2).size(), 2u);
  const Finished f = a.finish();
  EXPECT_EQ(f.status, 0) << f.err << logs();
  EXPECT_EQ(f.err, kCleanSummary);
  const std::string text = plumbing::read_text_file(times);
  EXPECT_TRUE(std::regex_match(text, std::regex("[1-9][0-9]*\n[1-9][0-9]*\n"))) << text;
}

TEST_F(AdapterTest, TheNullSchemeAnswersACounterWithoutAServer) {
  Adapter a({"null"}, "");
  EXPECT_EQ(a.request(3), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(a.request(1), (std::vector<std::string>{"4"}));
  const Finished f = a.finish();
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(f.err, "");
}

TEST_F(AdapterTest, TheDirectClientRunsTheSchemesSqlFromThreads) {
  const realbench::CellPlan plan{
      .clients = 2, .request_size = 5, .warmup_ns = 0, .duration_ns = 200'000'000};
  const realbench::CellFigures f = realbench::measure_direct(
      {"ticket-pair", "--engine", "myisam"},
      {pair_->servers()[0]->socket(), pair_->servers()[1]->socket()}, plan);
  EXPECT_EQ(f.error, "") << logs();
  EXPECT_GT(f.requests, 0u);
  EXPECT_EQ(f.ids, 5 * f.requests);
  EXPECT_EQ(f.latency_ns.count(), f.requests);
  ASSERT_TRUE(f.adapter_counters.has_value());
  EXPECT_EQ(f.adapter_counters->at("failovers"), 0u);

  ::setenv("IDBENCH_MARIADB_WAIT_MS", "0", 1);
  const realbench::CellFigures down =
      realbench::measure_direct({"sequence"}, {"/nonexistent/mysqld.sock"}, plan);
  ::unsetenv("IDBENCH_MARIADB_WAIT_MS");
  EXPECT_NE(down.error.find("sequence: no server answers: ERROR 2002"), std::string::npos)
      << down.error;
  EXPECT_EQ(down.requests, 0u);
}

TEST_F(AdapterTest, ABadSchemeOrRequestExits2WithOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"auto_increment"}, {}, {"uuid", "--engine", "innodb"}, {"ticket-pair", "--engine", "csv"}}) {
    Adapter a(args, one());
    const Finished f = a.finish();
    EXPECT_EQ(f.status, 2);
    EXPECT_EQ(std::count(f.err.begin(), f.err.end(), '\n'), 1) << f.err;
  }
  Adapter bad({"uuid"}, one());
  EXPECT_TRUE(bad.request(1).size() == 1);
  EXPECT_TRUE(bad.request(0).empty());
  const Finished f = bad.finish();
  EXPECT_EQ(f.status, 2);
  EXPECT_NE(f.err.find("bad request '0'"), std::string::npos) << f.err;
  Adapter no_env({"uuid"}, "");
  EXPECT_EQ(no_env.finish().status, 2);
  // (Built piece by piece: g++ 12 -O3 warns falsely on "," + s, -Wrestrict.)
  std::string leading(1, ',');
  leading.append(one());
  std::string doubled = one();
  doubled.append(",,").append(one());
  for (const std::string& sockets : {one() + ",", leading, doubled}) {
    Adapter empty_entry({"uuid"}, sockets);
    const Finished e = empty_entry.finish();
    EXPECT_EQ(e.status, 2) << sockets;
    EXPECT_NE(e.err.find("has an empty entry"), std::string::npos) << e.err;
  }
}

TEST_F(AdapterTest, NoServerExits1NamingTheSchemeAndTheError) {
  Adapter a({"sequence"}, "/nonexistent/mysqld.sock", {"IDBENCH_MARIADB_WAIT_MS=0"});
  const Finished f = a.finish();
  EXPECT_EQ(f.status, 1);
  EXPECT_EQ(std::count(f.err.begin(), f.err.end(), '\n'), 1) << f.err;
  EXPECT_NE(f.err.find("sequence: no server answers: ERROR 2002"), std::string::npos) << f.err;
}

TEST_F(AdapterTest, RunningSystemGivesTheAdapterItsSockets) {
  const external::ExecSpec spec = pair_->exec_spec();
  EXPECT_EQ(spec.command, std::string(IDBENCH_MARIADB_ADAPTER) + " ticket-pair --engine myisam");
  EXPECT_NE(std::find(spec.env.begin(), spec.env.end(),
                      std::string(socket_env(ServerKind::mariadb)) + "=" + both()),
            spec.env.end());
  EXPECT_EQ(pair_->settings(1).mariadb.auto_increment_offset, 2);
  EXPECT_NE(pair_->describe().find("auto_increment_increment=2, auto_increment_offset=1"),
            std::string::npos);
}

}  // namespace
}  // namespace idbench::real
