// client_node_test.cpp — idbench-real-client on planted adapters (sh scripts): it records each
// ID and each failed request and starts its adapter again; a kill -9 leaves whole records and
// no adapter; bad flags are one line and exit 2. The pool of them: its counts rise while it
// runs, stop_into() keeps every record, and nothing is left after a stop, an exception or an
// interrupt. No servers.
#include "real/client_node.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "fault/fleet.hpp"
#include "fault/history.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"
#include "real/faults_clients.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

// The planted adapters' scripts and the files they write, in one private directory.
class ClientTest : public ::testing::Test {
 protected:
  // Writes `body` as an executable /bin/sh script that first appends its pid to `pids`.
  std::string adapter(const std::string& body) {
    const std::string path = dir_.path() + "/adapter.sh";
    std::ofstream(path) << "#!/bin/sh\necho $$ >> " << pids() << "\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  external::ExecSpec spec_for(const std::string& path) {
    external::ExecSpec s;
    s.command = path;
    s.timeout_ms = 5'000;
    s.env = {"PLANTED=yes"};
    return s;
  }
  std::string pids() const { return dir_.path() + "/pids"; }
  std::string out() const { return dir_.path(); }
  std::string records_path() const { return out() + "/" + fault::record_file_name(0, 0, 0); }
  std::string adapter_stderr() const { return out() + "/client.stderr"; }

  // One client node (index 0, client 4: its adapters' node id is 5) in a fleet.
  fault::Fleet::Launcher node(const external::ExecSpec& spec) const {
    return [this, spec](int k, int i) {
      std::vector<std::string> argv = {plumbing::program_beside_self("idbench-real-client"),
                                       "--index", std::to_string(k), "--incarnation",
                                       std::to_string(i), "--client", "4", "--out-dir", out(),
                                       "--adapter-stderr", adapter_stderr(), "--env", spec.env[0],
                                       "--exec", spec.command, "--timeout-ms",
                                       std::to_string(spec.timeout_ms)};
      return fault::NodeLaunch{argv, std::nullopt, out() + "/node.err"};
    };
  }

  plumbing::TempDir dir_{"idbench-client-node-test"};
};

std::vector<fault::Record> await_records(const std::string& path, std::size_t ids,
                                         std::size_t failures) {
  const std::int64_t deadline = plumbing::monotonic_ns() + 60 * kSec;
  for (;;) {
    std::vector<fault::Record> r = fault::read_records(path);
    std::size_t i = 0, f = 0;
    for (const auto& x : r) (fault::is(x, fault::RecordKind::id) ? i : f) += 1;
    if ((i >= ids && f >= failures) || plumbing::monotonic_ns() > deadline) return r;
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + kSec / 100);
  }
}

std::vector<std::string> lines_in(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(plumbing::read_text_file(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// True when every pid named in the file has ended (reaped or not: a zombie still counts as
// running, so "ended" waits for its reaper), within 10 s.
bool all_gone(const std::string& pids_file) {
  const std::int64_t deadline = plumbing::monotonic_ns() + 10 * kSec;
  for (;;) {
    bool any = false;
    for (const std::string& p : lines_in(pids_file)) {
      any = any || std::filesystem::exists("/proc/" + p);
    }
    if (!any) return true;
    if (plumbing::monotonic_ns() > deadline) return false;
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + kSec / 50);
  }
}

// This process's children (a client node not reaped shows here, running or a zombie).
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::istringstream stat(plumbing::read_text_file(e.path().string() + "/stat"));
    std::string pid, comm, state;
    pid_t ppid = 0;
    stat >> pid >> comm >> state >> ppid;  // comm has no blank in our children's names
    if (ppid == ::getpid()) out.push_back(std::stoi(pid));
  }
  return out;
}

TEST_F(ClientTest, ANodeRecordsEachIdAndEachFailedRequestAndStartsItsAdapterAgain) {
  // Each adapter answers three requests, then fails the fourth (it exits).
  const std::string path = adapter(
      "[ \"$PLANTED\" = yes ] || exit 9\n"
      "i=0\nwhile read n; do i=$((i+1))\n"
      "  if [ $i -gt 3 ]; then echo \"db gone at $i\" >&2; exit 1; fi\n"
      "  echo $((IDBENCH_NODE_ID * 1000 + i))\ndone\n");
  fault::Fleet fleet(node(spec_for(path)), 15 * kSec);
  ASSERT_EQ(fleet.start(0), "ready");
  await_records(records_path(), 9, 3);
  fleet.stop({.close_stdin = true, .deadline_mono_ns = plumbing::monotonic_ns() + 20 * kSec});

  const std::vector<fault::Record> r = fault::read_records(records_path());
  const std::vector<std::string> messages = lines_in(out() + "/" + fault::messages_file_name(0, 0));
  std::uint64_t failures = 0, run = 0;
  std::int64_t last_mono = 0;
  for (const fault::Record& x : r) {
    EXPECT_GE(x.mono_ns, last_mono);
    EXPECT_GT(x.true_ns, 0);
    last_mono = x.mono_ns;
    if (fault::is(x, fault::RecordKind::id)) {
      EXPECT_EQ(x.lo, 5000 + ++run) << "node id 5 (client 4 + 1), one ID per request";
      continue;
    }
    ASSERT_TRUE(fault::is(x, fault::RecordKind::failed_request));
    EXPECT_EQ(run, 3u) << "three IDs, then the fourth request failed";
    ASSERT_EQ(x.lo, failures) << "the failure's line in the messages file";
    ASSERT_LT(x.lo, messages.size());
    EXPECT_NE(messages[x.lo].find(path), std::string::npos) << messages[x.lo];
    EXPECT_EQ(messages[x.lo].find("sh -c"), std::string::npos) << "unwrapped: " << messages[x.lo];
    ++failures;
    run = 0;
  }
  EXPECT_GE(failures, 3u);
  // A new adapter after each failure (the IDs above start again at 5001); the last one may
  // not have started when the node stopped, in its pause.
  EXPECT_GE(lines_in(pids()).size(), failures) << "a new adapter after each failure";
  EXPECT_NE(plumbing::read_text_file(adapter_stderr()).find("db gone at 4"), std::string::npos);
  EXPECT_TRUE(all_gone(pids()));
}

TEST_F(ClientTest, ANodeKilledWithMinus9LeavesWholeRecordsAndNoAdapter) {
  const std::string path = adapter("while read n; do echo 7; done\n");
  fault::Fleet fleet(node(spec_for(path)), 15 * kSec);
  ASSERT_EQ(fleet.start(0), "ready");
  // Seen while the node runs: each record is written as it is issued.
  ASSERT_GE(await_records(records_path(), 150, 0).size(), 150u);
  fleet.kill(0);
  EXPECT_EQ(std::filesystem::file_size(records_path()) % sizeof(fault::Record), 0u);
  for (const fault::Record& x : fault::read_records(records_path())) {
    ASSERT_TRUE(fault::is(x, fault::RecordKind::id));
    ASSERT_EQ(x.lo, 7u);
  }
  EXPECT_TRUE(all_gone(pids())) << "the adapter dies with its node";
}

TEST(ClientNodeFlags, BadInputIsOneLineAndExit2) {
  const std::string bin = plumbing::program_beside_self("idbench-real-client");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--index", "0", "--client", "1", "--out-dir", "/tmp", "--adapter-stderr", "/tmp/e"},
           {"--index", "x", "--client", "1", "--out-dir", "/tmp", "--adapter-stderr", "/tmp/e",
            "--exec", "/bin/true"},
           {"--index", "0", "--client", "1", "--out-dir", "/tmp", "--adapter-stderr", "/tmp/e",
            "--exec", "/bin/true", "--env", "NOEQUALS"}}) {
    std::vector<std::string> argv = {bin};
    argv.insert(argv.end(), args.begin(), args.end());
    const plumbing::CommandResult r = plumbing::run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("idbench-real-client: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

std::uint16_t by_parity(const Id& id) { return id.lo % 2 == 1 ? 0 : 1; }

TEST_F(ClientTest, APoolsCountsRiseWhileItRunsAndStopIntoKeepsEveryRecord) {
  // Every third request of an adapter is answered with garbage (a failed request), after its
  // summary line on stderr (what an adapter prints as it ends).
  const std::string path = adapter(
      "i=0\nwhile read n; do i=$((i+1))\n"
      "  if [ $((i % 3)) -ne 0 ]; then echo $((IDBENCH_NODE_ID * 100000 + i)); continue; fi\n"
      "  echo \"planted-adapter: served=$((i - 1))\" >&2; echo garbage\ndone\n");
  ClientPool pool(spec_for(path), 2, by_parity, 3);
  ASSERT_TRUE(pool.await_ids({}, 4, plumbing::monotonic_ns() + 60 * kSec));
  const std::uint64_t ids_then = pool.ids();
  const std::vector<std::uint64_t> mark = pool.ids_per_client();
  ASSERT_TRUE(pool.await_ids(mark, 4, plumbing::monotonic_ns() + 60 * kSec));
  EXPECT_GE(pool.ids(), ids_then + 8);
  EXPECT_GE(pool.failures(), 2u);
  const std::uint64_t ids_seen = pool.ids(), failures_seen = pool.failures();

  FaultRecords r;
  pool.stop_into(r);
  EXPECT_GE(r.ids.size(), ids_seen);
  EXPECT_GE(r.failures.size(), failures_seen);
  EXPECT_EQ(r.requests, r.ids.size() + r.failures.size());
  std::set<std::uint16_t> clients;
  for (const IssuedId& x : r.ids) {
    clients.insert(x.client);
    EXPECT_EQ(x.id.lo / 100000, x.client + 1u) << "node id = client + 1";
    EXPECT_EQ(x.server, by_parity(x.id));
    EXPECT_GT(x.true_ns, 0);
    EXPECT_GT(x.mono_ns, 0);
  }
  EXPECT_EQ(clients, (std::set<std::uint16_t>{3, 4}));
  for (const FailedRequest& f : r.failures) {
    EXPECT_NE(f.message.find("garbage"), std::string::npos) << f.message;
    EXPECT_TRUE(f.client == 3 || f.client == 4);
  }
  ASSERT_TRUE(r.adapter_stderr.counters.has_value());
  EXPECT_GE(r.adapter_stderr.counters->at("served"), 2 * r.failures.size());
  EXPECT_TRUE(children().empty());
  EXPECT_TRUE(all_gone(pids()));
}

TEST_F(ClientTest, NothingIsLeftRunningWhenAnExceptionEndsThePool) {
  const std::string path = adapter("while read n; do echo 1; done\n");
  try {
    ClientPool pool(spec_for(path), 2, by_parity);
    ASSERT_TRUE(pool.await_ids({}, 3, plumbing::monotonic_ns() + 60 * kSec));
    throw std::runtime_error("the scenario failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(children().empty());
  EXPECT_EQ(lines_in(pids()).size(), 2u);
  EXPECT_TRUE(all_gone(pids()));
}

// In a child process: the interrupt flag, once set, stays set for the process.
using ClientDeathTest = ClientTest;
TEST_F(ClientDeathTest, AnInterruptEndsThePoolAndLeavesNothingRunning) {
  const std::string path = adapter("while read n; do echo 1; done\n");
  EXPECT_EXIT(
      {
        plumbing::InterruptGuard guard;
        try {
          ClientPool pool(spec_for(path), 2, by_parity);
          if (!pool.await_ids({}, 3, plumbing::monotonic_ns() + 60 * kSec)) std::_Exit(3);
          ::raise(SIGINT);
          pool.await_ids({}, 1'000'000, plumbing::monotonic_ns() + 60 * kSec);
          std::_Exit(4);
        } catch (const plumbing::Interrupted&) {
        }
        std::_Exit(children().empty() && all_gone(pids()) ? 42 : 5);
      },
      ::testing::ExitedWithCode(42), "");
}

}  // namespace
}  // namespace idbench::real
