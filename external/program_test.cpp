// program_test.cpp — the line protocol against small /bin/sh programs: good answers, every way a
// program can fail (each message names the command and the line), the node id, one program
// per thread, and no process left behind.
#include "external/program.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::external {
namespace {

class ProgramTest : public ::testing::Test {
 protected:
  // Writes `body` as an executable /bin/sh script; returns its path.
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  ExecSpec spec_for(const std::string& command) {
    ExecSpec s;
    s.command = command;
    s.timeout_ms = 5'000;
    return s;
  }
  plumbing::TempDir dir_{"idbench-program-test"};
};

// Counts up from IDBENCH_NODE_ID * 1000000, n IDs per request.
constexpr const char* kCounter =
    "i=$((IDBENCH_NODE_ID * 1000000))\n"
    "while read n; do\n"
    "  j=0; while [ $j -lt $n ]; do i=$((i+1)); echo $i; j=$((j+1)); done\n"
    "done\n";

// The message of the ProgramError `f` throws ("" when it throws nothing or something else).
template <class F>
std::string program_error(F&& f) {
  try {
    f();
  } catch (const ProgramError& e) {
    return e.what();
  }
  return "";
}

bool process_exists(pid_t pid) {
  return std::filesystem::exists("/proc/" + std::to_string(pid));
}

// Processes (not zombies) in process group `pgid`.
int live_in_group(pid_t pgid) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z') ++n;
  }
  return n;
}

// Waits up to 2 s for the group to empty (a killed grandchild is reparented, then reaped).
bool group_gone(pid_t pgid) {
  for (int i = 0; i < 200; ++i) {
    if (live_in_group(pgid) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(SplitCommand, BlanksSeparateAndQuotesGroup) {
  EXPECT_EQ(split_command("  a  b\tc "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_command("sh -c 'echo $X \"y\"'"),
            (std::vector<std::string>{"sh", "-c", "echo $X \"y\""}));
  EXPECT_EQ(split_command(R"(a "b \" \\ c"d)"), (std::vector<std::string>{"a", R"(b " \ cd)"}));
  EXPECT_EQ(split_command("a '' b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_THROW(split_command("   "), Error);
  EXPECT_THROW(split_command("a 'b"), Error);
  EXPECT_THROW(split_command("a \"b\\\""), Error);
}

TEST_F(ProgramTest, ADecimalProgramAnswersEachRequest) {
  Program p(spec_for(script("count.sh", kCounter)), 3);
  std::vector<Id> ids;
  p.request(3, ids);
  p.request(2, ids);
  ASSERT_EQ(ids.size(), 5u);
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], Id::from_u64(3'000'001 + i));
  EXPECT_EQ(p.width(), IdWidth::bits64);
}

TEST_F(ProgramTest, AUuidProgramIsReadAs128Bit) {
  const std::string cmd = script("uuid.sh",
                                 "i=0\n"
                                 "while read n; do\n"
                                 "  j=0; while [ $j -lt $n ]; do i=$((i+1));\n"
                                 "    printf '0190a5c1-0000-7000-8000-%012x\\n' $i; j=$((j+1));\n"
                                 "  done\n"
                                 "done\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  p.request(4, ids);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(p.width(), IdWidth::bits128);
  EXPECT_EQ(ids[3], Id::from_uuid(*Uuid::parse("0190a5c1-0000-7000-8000-000000000004")));
}

TEST_F(ProgramTest, TheNodeIdIsInTheEnvironment) {
  const std::string cmd =
      script("node.sh", "while read n; do j=0; while [ $j -lt $n ]; do echo \"$IDBENCH_NODE_ID\"; "
                        "j=$((j+1)); done; done\n");
  Program p(spec_for(cmd), 42);
  std::vector<Id> ids;
  p.request(2, ids);
  EXPECT_EQ(ids, (std::vector<Id>{Id::from_u64(42), Id::from_u64(42)}));
}

TEST_F(ProgramTest, ExtraEnvironmentAndQuotedArgumentsReachIt) {
  ExecSpec s = spec_for("sh -c 'read n; echo \"$BASE$1\"' ignored '7'");
  s.env = {"BASE=10"};
  Program p(s, 0);
  std::vector<Id> ids;
  p.request(1, ids);
  EXPECT_EQ(ids, std::vector<Id>{Id::from_u64(107)});
}

TEST_F(ProgramTest, EarlyExitNamesTheStatusAndTheCount) {
  const std::string cmd = script("early.sh", "read n; echo 1; exit 3\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] { p.request(5, ids); });
  EXPECT_NE(msg.find("program '" + cmd + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("exited with status 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of the 5 IDs"), std::string::npos) << msg;
  EXPECT_TRUE(ids.empty());  // all or nothing
  // Dead now: a further request says why, without starting anything.
  EXPECT_NE(program_error([&] { p.request(1, ids); }).find("exited with status 3"),
            std::string::npos);
}

TEST_F(ProgramTest, KilledBySignalIsNamed) {
  const std::string cmd = script("killed.sh", "read n; kill -9 $$\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] { p.request(1, ids); });
  EXPECT_NE(msg.find("killed by signal 9 (SIGKILL)"), std::string::npos) << msg;
}

// An interrupt kills every program from its handler; a thread that next writes a request meets
// a closed pipe, not a signal. That program did not fail: the run was interrupted, and says so
// (exit 130), never "the program exited" (exit 2) with what was read committed. In a death
// test: a signal marks the whole process interrupted for good.
TEST_F(ProgramTest, AProgramKilledByAnInterruptIsAnInterruptionNotAFailure) {
  const std::string cmd = script("answers-then-waits.sh", "read n; echo 1; exec sleep 60\n");
  EXPECT_EXIT(
      {
        const plumbing::InterruptGuard guard;
        Program p(spec_for(cmd), 0);
        std::vector<Id> ids;
        p.request(1, ids);
        ::raise(SIGINT);  // the handler kills the program
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it is dead by now
        try {
          p.request(1, ids);
        } catch (const plumbing::Interrupted&) {
          std::_Exit(130);
        } catch (const ProgramError&) {
          std::_Exit(2);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(130), "");
}

TEST_F(ProgramTest, FewerIdsThanAskedIsNamed) {
  const std::string cmd = script("fewer.sh", "read n; echo 1; echo 2\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] { p.request(3, ids); });
  EXPECT_NE(msg.find(cmd), std::string::npos) << msg;
  EXPECT_NE(msg.find("exited with status 0 after printing 2 of the 3 IDs asked"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
}

TEST_F(ProgramTest, MoreIdsThanAskedBreakTheProtocol) {
  // N + 5 lines for a request of N: the extra lines would be taken as the next request's
  // answer, IDs it never asked for. Caught at the latest when the next request is made.
  const std::string cmd = script(
      "more.sh", "i=0\nwhile read n; do\n  j=0; while [ $j -lt $((n + 5)) ]; do i=$((i+1)); "
                 "echo $i; j=$((j+1)); done\ndone\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] {
    p.request(10, ids);
    ::usleep(200'000);  // the extra lines are surely written by now
    p.request(10, ids);
  });
  EXPECT_NE(msg.find(cmd), std::string::npos) << msg;
  EXPECT_NE(msg.find("more lines than the 10 IDs asked"), std::string::npos) << msg;
}

TEST_F(ProgramTest, AMalformedLineIsNamedByItsNumberInTheWholeOutput) {
  const std::string cmd = script("bad.sh", "read n; echo 1; echo 2; read n; echo 3; printf 'x\\ty\\n'\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  p.request(2, ids);
  const std::string msg = program_error([&] { p.request(2, ids); });
  EXPECT_NE(msg.find("program '" + cmd + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 4 of its output"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'x\\ty'"), std::string::npos) << msg;  // escaped, one line
  EXPECT_EQ(msg.find('\t'), std::string::npos) << msg;
  EXPECT_EQ(ids.size(), 2u);  // the first answer stays; nothing of the second
}

TEST_F(ProgramTest, MixedWidthsAreNamed) {
  const std::string cmd =
      script("mixed.sh", "read n; echo 1; echo 0190a5c1-0000-7000-8000-000000000001\n");
  Program p(spec_for(cmd), 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] { p.request(2, ids); });
  EXPECT_NE(msg.find(cmd), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2 of its output mixes widths"), std::string::npos) << msg;
}

TEST_F(ProgramTest, AGivenWidthIsHeldToo) {
  ExecSpec s = spec_for(script("uuid1.sh", "read n; echo 0190a5c1-0000-7000-8000-000000000001\n"));
  s.width = IdWidth::bits64;
  Program p(s, 0);
  std::vector<Id> ids;
  const std::string msg = program_error([&] { p.request(1, ids); });
  EXPECT_NE(msg.find("line 1 of its output mixes widths"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--id-bits"), std::string::npos) << msg;
}

TEST_F(ProgramTest, AProgramThatIsNotThereIsNamed) {
  const std::string on_path =
      program_error([&] { Program p(spec_for("idbench-no-such-program-xyz --flag"), 0); });
  EXPECT_NE(on_path.find("'idbench-no-such-program-xyz' not found on $PATH"), std::string::npos)
      << on_path;
  EXPECT_NE(on_path.find("program 'idbench-no-such-program-xyz --flag'"), std::string::npos);
  const std::string by_path = program_error([&] { Program p(spec_for(dir_.path() + "/nope"), 0); });
  EXPECT_NE(by_path.find("'" + dir_.path() + "/nope' not found"), std::string::npos) << by_path;
}

TEST_F(ProgramTest, AHangIsCutAtTheTimeoutAndLeavesNothing) {
  ExecSpec s = spec_for(script("hang.sh", "read n; echo 1; sleep 30; echo 2\n"));
  s.timeout_ms = 300;
  pid_t pid = 0;
  std::string msg;
  const auto began = std::chrono::steady_clock::now();
  {
    Program p(s, 0);
    pid = p.pid();
    std::vector<Id> ids;
    msg = program_error([&] { p.request(2, ids); });
  }
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(3));
  EXPECT_NE(msg.find("no answer within 300 ms"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of the 2 IDs"), std::string::npos) << msg;
  EXPECT_NE(msg.find(s.command), std::string::npos) << msg;
  EXPECT_FALSE(process_exists(pid));
  EXPECT_TRUE(group_gone(pid));  // its `sleep` too
}

// A program that answered before and then hangs is named with how far it got.
TEST_F(ProgramTest, AProgramThatStopsAnsweringIsNamedWithWhatItAnswered) {
  ExecSpec s = spec_for(script("stops.sh", "read n; echo 1; echo 2; read n; echo 3; exec sleep 30\n"));
  s.timeout_ms = 300;
  Program p(s, 0);
  std::vector<Id> ids;
  p.request(2, ids);
  const std::string msg = program_error([&] { p.request(2, ids); });
  EXPECT_NE(msg.find("stopped answering after 3 IDs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no answer within 300 ms (--timeout-ms)"), std::string::npos) << msg;
  EXPECT_NE(msg.find(s.command), std::string::npos) << msg;
}

// A line with no end is not read forever (nor held whole): past 1 MiB it is the program's fault,
// named as such, not a timeout.
TEST_F(ProgramTest, ALineOverOneMibIsNamed) {
  ExecSpec s = spec_for(
      script("long.sh", "read n; echo 1; read n; head -c 3000000 /dev/zero | tr '\\0' 7; "
                        "exec sleep 30\n"));
  s.timeout_ms = 60'000;
  Program p(s, 0);
  std::vector<Id> ids;
  p.request(1, ids);
  const std::string msg = program_error([&] { p.request(1, ids); });
  EXPECT_NE(msg.find("printed a line over 1 MiB (line 2 of its output)"), std::string::npos)
      << msg.substr(0, 300);
  EXPECT_EQ(msg.find("no answer"), std::string::npos) << msg.substr(0, 300);
}

TEST_F(ProgramTest, DestructionEndsAProgramThatIgnoresEofAndSigterm) {
  const std::string cmd = script("stubborn.sh",
                                 "trap '' TERM\n"
                                 "read n; echo 1\n"
                                 "while :; do sleep 0.1; done\n");
  pid_t pid = 0;
  {
    Program p(spec_for(cmd), 0);
    pid = p.pid();
    std::vector<Id> ids;
    p.request(1, ids);
    ASSERT_EQ(ids.size(), 1u);
  }
  EXPECT_FALSE(process_exists(pid));
  EXPECT_TRUE(group_gone(pid));
}

TEST_F(ProgramTest, DestructionAfterGoodUseEndsItByEof) {
  pid_t pid = 0;
  const auto began = std::chrono::steady_clock::now();
  {
    Program p(spec_for(script("count.sh", kCounter)), 0);
    pid = p.pid();
    std::vector<Id> ids;
    p.request(10, ids);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(2));
  EXPECT_FALSE(process_exists(pid));
}

TEST_F(ProgramTest, AGeneratorGivesEachThreadItsOwnProgramAndNodeId) {
  const std::string cmd =
      script("node.sh", "while read n; do j=0; while [ $j -lt $n ]; do echo \"$IDBENCH_NODE_ID\"; "
                        "j=$((j+1)); done; done\n");
  ExecSpec s = spec_for(cmd);
  s.batch = 3;
  GeneratorOptions opts;
  opts.node = 5;
  const Variant v = exec_variant(s);
  auto gen = v.make(opts);
  EXPECT_EQ(gen->width(), IdWidth::bits64);
  EXPECT_EQ(gen->next(), Id::from_u64(5));  // this thread first: node 5
  std::vector<Id> seen;
  for (int t = 0; t < 2; ++t) {  // then two threads in turn: 6, 7
    std::thread([&] {
      for (int i = 0; i < 4; ++i) seen.push_back(gen->next());  // across two requests
    }).join();
  }
  EXPECT_EQ(seen, (std::vector<Id>{Id::from_u64(6), Id::from_u64(6), Id::from_u64(6),
                                   Id::from_u64(6), Id::from_u64(7), Id::from_u64(7),
                                   Id::from_u64(7), Id::from_u64(7)}));
  EXPECT_EQ(gen->next(), Id::from_u64(5));  // this thread keeps its program
}

TEST_F(ProgramTest, AGeneratorFromManyThreadsHandsOutEveryIdOnce) {
  ExecSpec s = spec_for(script("count.sh", kCounter));
  s.batch = 50;
  GeneratorOptions opts;
  opts.node = 1;
  auto gen = make_external(s, opts);
  std::vector<std::vector<Id>> got(4);
  std::vector<std::thread> threads;
  for (auto& out : got) {
    threads.emplace_back([&gen, &out] {
      for (int i = 0; i < 120; ++i) out.push_back(gen->next());
    });
  }
  for (auto& t : threads) t.join();
  std::set<Id> all;
  for (const auto& out : got) all.insert(out.begin(), out.end());
  EXPECT_EQ(all.size(), 480u);
}

TEST_F(ProgramTest, AGeneratorPropagatesTheProgramsError) {
  ExecSpec s = spec_for(script("bad.sh", "read n; echo nope\n"));
  s.batch = 1;
  auto gen = make_external(s, GeneratorOptions{});
  const std::string msg = program_error([&] { gen->next(); });
  EXPECT_NE(msg.find("line 1 of its output is not an ID: 'nope'"), std::string::npos) << msg;
}

TEST(ExecVariant, DescribesTheProgram) {
  ExecSpec s;
  s.command = "adapters/idbench-adapter python uuid1";
  s.id_time = IdTime::uuid;
  s.ordering = Ordering::monotone_per_stream;
  const Variant v = exec_variant(s);
  EXPECT_EQ(v.name, "exec");
  EXPECT_EQ(v.family, "external");
  EXPECT_EQ(v.width, IdWidth::bits128);
  EXPECT_EQ(v.ordering, Ordering::monotone_per_stream);
  EXPECT_TRUE(v.time_based);
  EXPECT_FALSE(v.uses_layout);
  EXPECT_EQ(v.node_ids, NodeIds::per_thread);
  EXPECT_EQ(v.id_time, IdTime::uuid);
  EXPECT_FALSE(v.defaults.chaos || v.defaults.chaos_quick || v.defaults.locality);

  for (IdTime t : {IdTime::uuidv7, IdTime::ulid, IdTime::ksuid}) {
    s.id_time = t;
    EXPECT_EQ(exec_variant(s).width, IdWidth::bits128) << name_of(t);
  }
  s.id_time = IdTime::none;
  EXPECT_EQ(exec_variant(s).width, IdWidth::bits64);
  EXPECT_FALSE(exec_variant(s).time_based);
  s.id_time = IdTime::layout;
  s.layout = "discord";
  EXPECT_TRUE(exec_variant(s).uses_layout);
}

TEST(ExecVariant, RefusesASpecThatCannotWork) {
  ExecSpec s;
  EXPECT_THROW(exec_variant(s), Error);  // no command
  s.command = "prog 'unbalanced";
  EXPECT_THROW(exec_variant(s), Error);
  s.command = "prog";
  s.id_time = IdTime::layout;
  s.layout = "nonsense";
  EXPECT_THROW(exec_variant(s), Error);
  s.layout = "twitter";
  s.width = IdWidth::bits128;
  EXPECT_THROW(exec_variant(s), Error);
  s.id_time = IdTime::uuidv7;
  s.width = IdWidth::bits64;
  EXPECT_THROW(exec_variant(s), Error);
  s.width.reset();
  s.batch = 0;
  EXPECT_THROW(exec_variant(s), Error);
}

}  // namespace
}  // namespace idbench::external
