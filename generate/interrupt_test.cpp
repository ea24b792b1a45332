// interrupt_test.cpp — a signal during an --exec run of generate's engine: the programs
// killed, Interrupted thrown, nothing committed and nothing left. Its own binary, labelled unit
// rather than concurrent: the run happens in a child the death test forks (a signal marks the
// whole process interrupted for good), and the engine's threads are already checked under
// ThreadSanitizer by generate_engine_test.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "generate/engine.hpp"
#include "generate/test_files.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::generate {
namespace {

using namespace idbench::generate::test_files;

// True when process `pid` is gone (or a zombie nobody reaped yet) within 3 s.
bool gone(pid_t pid) {
  for (int i = 0; i < 30; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state) || state == "Z") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Writes `body` as an executable /bin/sh script at `path`; returns the path.
std::string script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

// SIGINT while the programs run (each sends it after its first answer, then hangs): the run
// throws Interrupted, the programs are killed, the old file stays and nothing else is left.
TEST(GenerateEngineDeathTest, ASignalKillsTheProgramsAndCommitsNothing) {
  const plumbing::TempDir tmp("idbench-generate-interrupt-test");
  const std::string dir = tmp.path() + "/out";
  std::filesystem::create_directory(dir);
  std::ofstream(dir + "/ids.txt") << "old\n";
  const std::string pid_file = tmp.path() + "/program.pid";
  const std::string program =
      script(tmp.path() + "/interrupts",
             "echo $$ >\"$PID_FILE.$IDBENCH_NODE_ID\"\n"
             "read n; j=0; while [ $j -lt $n ]; do j=$((j+1)); echo $j; done\n"
             "kill -INT \"$TEST_PID\"\n"
             "exec sleep 60\n");
  EXPECT_EXIT(
      {
        GenerateOptions o;
        o.exec.emplace();
        o.exec->command = program;
        o.exec->batch = 10;
        o.exec->env.push_back("PID_FILE=" + pid_file);
        o.exec->env.push_back("TEST_PID=" + std::to_string(::getpid()));
        o.threads = 2;
        o.count = 1'000'000;
        o.out = dir + "/ids.txt";
        try {
          run_generate(o);
        } catch (const plumbing::Interrupted&) {
          std::_Exit(130);
        } catch (...) {
          std::_Exit(1);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(130), "");
  EXPECT_EQ(read_file(dir + "/ids.txt"), "old\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"ids.txt"});
  // Instance 1 may not have started when instance 0's signal came; every one that did is gone.
  int started = 0;
  for (const char* node : {".0", ".1"}) {
    const std::string pid = read_file(pid_file + node);
    if (pid.empty()) continue;
    ++started;
    EXPECT_TRUE(gone(static_cast<pid_t>(std::stol(pid)))) << "program " << node << " is left";
  }
  EXPECT_GE(started, 1);
}

}  // namespace
}  // namespace idbench::generate
