// child_process_test.cpp — fork/exec, pipes, deadlines, stop, interrupts, and the parent-death
// signal that must survive the drop to an unprivileged user.
#include "plumbing/child_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "plumbing/temp_dir.hpp"

namespace idbench::plumbing {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// A spec with argv and stdio set (fields assigned, not designated: GCC 12 warns about the
// omitted ones).
ChildSpec spec(std::vector<std::string> argv, Stdio out = Stdio::null()) {
  ChildSpec s;
  s.argv = std::move(argv);
  s.out = std::move(out);
  return s;
}

TEST(RunCommand, CapturesStdoutStderrAndTheExitCode) {
  const auto r = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
}

TEST(RunCommand, ReadsStdinFromAFile) {
  TempDir dir("idbench-child-test");
  const std::string in = dir.path() + "/in";
  std::ofstream(in) << "a\nb\n";
  const auto r = run_command({"/bin/cat"}, CommandOptions{in, 600'000, std::nullopt});
  EXPECT_EQ(r.out, "a\nb\n");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(RunCommand, KillsTheWholeGroupAtTheTimeout) {
  // The shell's own child (sleep) holds stdout open: only killing the group ends the run.
  const auto r =
      run_command({"/bin/sh", "-c", "sleep 30; echo never"}, CommandOptions{"", 200, std::nullopt});
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.out, "");
}

// kill_and_reap returns once every process of the child's group has died, not only the child:
// a PostgreSQL restarted after a kill -9 of its postmaster found the backends, killed but not
// yet gone, still attached to its shared memory.
TEST(ChildProcessKill, ReturnsOnceTheWholeGroupHasDied) {
  ChildProcess child(spec(
      {"/bin/sh", "-c", "for i in $(seq 40); do sleep 30 & done; echo up; wait"}, Stdio::pipe()));
  ASSERT_EQ(child.read_line(monotonic_ns() + 10 * kSecond), "up");
  const pid_t group = child.pid();
  ASSERT_TRUE(group_running(group));
  child.kill_and_reap();
  EXPECT_FALSE(group_running(group)) << "a member of the killed group is still running";
}

TEST(RunCommand, AProgramThatCannotBeExecutedExits127) {
  const auto r = run_command({"/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot execute /nonexistent/program"), std::string::npos);
}

TEST(RunCommand, WorksWithOurStdoutClosed) {
  const int saved = ::dup(1);
  ::close(1);
  const auto r = run_command({"/bin/sh", "-c", "echo hi; echo ho >&2"});
  ::dup2(saved, 1);
  ::close(saved);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "ho\n");
}

TEST(ChildProcess, TalksInLinesOverPipesAndGetsExactlyTheEnvironmentGiven) {
  TempDir dir("idbench-child-test");
  ChildProcess cat({"/bin/cat"}, {}, dir.path() + "/err");
  cat.send_line("hello");
  EXPECT_EQ(cat.read_line(monotonic_ns() + 10 * kSecond), "hello");
  cat.close_stdin();
  EXPECT_EQ(cat.read_line(monotonic_ns() + 10 * kSecond), std::nullopt);  // EOF
  EXPECT_EQ(cat.wait_until(monotonic_ns() + 10 * kSecond), 0);

  ChildSpec env_spec = spec({"/usr/bin/env"}, Stdio::pipe());
  env_spec.env = std::vector<std::string>{"A=1"};
  ChildProcess env(env_spec);
  std::string out, err;
  EXPECT_TRUE(env.read_to_end(out, err, monotonic_ns() + 10 * kSecond));
  EXPECT_EQ(out, "A=1\n");
}

TEST(ChildProcess, AnInheritedStderrIsOurs) {
  TempDir dir("idbench-child-test");
  const std::string path = dir.path() + "/err";
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(file, 0);
  ASSERT_EQ(::write(file, "before\n", 7), 7);
  const int saved = ::dup(2);
  ::dup2(file, 2);
  {
    ChildSpec s = spec({"/bin/sh", "-c", "echo from-child >&2"});
    s.err = Stdio::inherit();
    ChildProcess child(s);
    child.wait_until(monotonic_ns() + 5 * kSecond);
  }
  ::dup2(saved, 2);
  ::close(saved);
  ::close(file);
  // Appended to what was there: the same open file, not a truncating re-open.
  EXPECT_EQ(read_text_file(path), "before\nfrom-child\n");
}

TEST(ChildProcess, LeadsItsOwnProcessGroup) {
  ChildProcess sleeper(spec({"/bin/sleep", "30"}));
  // setpgid runs in both processes; the parent's call has returned by now.
  EXPECT_EQ(::getpgid(sleeper.pid()), sleeper.pid());
  EXPECT_EQ(sleeper.kill_and_reap(), 128 + SIGKILL);
  EXPECT_TRUE(sleeper.signalled());
}

TEST(ChildProcess, StopsAServerWithSigtermThenSigkill) {
  ChildProcess polite(spec({"/bin/sh", "-c", "trap 'exit 7' TERM; while :; do sleep 0.05; done"}));
  ::usleep(200'000);  // let the shell install its trap
  EXPECT_EQ(polite.stop(10 * kSecond), 7);
  EXPECT_FALSE(polite.signalled());

  ChildProcess stubborn(spec({"/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}));
  ::usleep(200'000);
  EXPECT_EQ(stubborn.stop(kSecond / 5), 128 + SIGKILL);
  EXPECT_FALSE(stubborn.running());
}

TEST(ChildProcess, DestructorKillsAndReaps) {
  pid_t pid;
  {
    ChildProcess sleeper(spec({"/bin/sleep", "30"}));
    pid = sleeper.pid();
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: not even a zombie is left
  EXPECT_EQ(errno, ESRCH);
}

TEST(InterruptGuard, ASignalKillsEveryChildAndUnwindsWithInterrupted) {
  InterruptGuard guard;
  ChildProcess sleeper(spec({"/bin/sleep", "30"}, Stdio::pipe()));
  ::raise(SIGINT);
  EXPECT_TRUE(interrupted());
  EXPECT_THROW(sleeper.read_line(monotonic_ns() + 10 * kSecond), Interrupted);
  EXPECT_EQ(sleeper.wait_until(monotonic_ns() + 10 * kSecond), 128 + SIGKILL);
}

// True when `pid` is gone, or a zombie nobody reaped yet.
bool gone(pid_t pid) {
  char state = 0;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip;
  if (!std::getline(stat, skip, ')')) return true;
  stat >> state;
  return state == 'Z' || state == 0;
}

bool gone_within(pid_t pid, std::int64_t ns) {
  for (const std::int64_t end = monotonic_ns() + ns; monotonic_ns() < end; ::usleep(20'000)) {
    if (gone(pid)) return true;
  }
  return gone(pid);
}

// A shell that leaves two background children, one in its process group and one that left it
// with setsid, prints their pids, then does `then` (wait for EOF on stdin, or ignore it).
ChildSpec leaves_children(const std::string& then = "read x; exit 0") {
  ChildSpec s = spec({"/bin/sh", "-c",
                      "sleep 300 </dev/null >/dev/null 2>&1 & echo $!; "
                      "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; " +
                          then},
                     Stdio::pipe());
  s.in = Stdio::pipe();
  s.contain = true;
  return s;
}

std::vector<pid_t> children_of(ChildProcess& child) {
  std::vector<pid_t> pids;
  for (int i = 0; i < 2; ++i) {
    const auto line = child.read_line(monotonic_ns() + 10 * kSecond);
    if (line) pids.push_back(std::stoi(*line));
  }
  return pids;
}

// Every descendant of a contained child ends with it: whether it ends by itself (EOF) or is
// killed, nothing it started is left, in its group or out of it, once it is reaped.
TEST(ChildProcess, EveryDescendantOfAContainedChildEndsWithIt) {
  for (const bool by_itself : {true, false}) {
    ChildProcess child(leaves_children());
    const std::vector<pid_t> left = children_of(child);
    ASSERT_EQ(left.size(), 2u);
    ::usleep(100'000);  // let setsid leave the group
    for (pid_t p : left) ASSERT_FALSE(gone(p)) << p;
    if (by_itself) {
      child.close_stdin();
      EXPECT_EQ(child.wait_until(monotonic_ns() + 10 * kSecond), 0);
    } else {
      EXPECT_EQ(child.kill_and_reap(), 128 + SIGKILL);
    }
    for (pid_t p : left) {
      EXPECT_TRUE(gone(p)) << p
                           << (by_itself ? " outlived a child that exited"
                                         : " outlived a killed child");
      if (!gone(p)) ::kill(p, SIGKILL);
    }
  }
}

// ... and when the process that started it is killed with -9, which can clean up nothing (the
// child ignores its stdin: only the supervisor's parent-death signal can end it).
TEST(ChildProcess, EveryDescendantOfAContainedChildEndsWhenItsParentIsKilled) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  if (parent == 0) {
    ChildProcess child(leaves_children("exec sleep 300 </dev/null"));
    pid_t pids[3] = {child.pid(), 0, 0};
    const std::vector<pid_t> left = children_of(child);
    for (std::size_t i = 0; i < left.size(); ++i) pids[i + 1] = left[i];
    ::usleep(100'000);
    [[maybe_unused]] ssize_t n = ::write(report[1], pids, sizeof pids);
    ::pause();
    ::_exit(0);
  }
  pid_t pids[3] = {};
  ASSERT_EQ(::read(report[0], pids, sizeof pids), static_cast<ssize_t>(sizeof pids));
  for (pid_t p : pids) ASSERT_GT(p, 0);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  for (pid_t p : pids) {
    EXPECT_TRUE(gone_within(p, 5 * kSecond)) << p << " outlived the killed parent";
    if (!gone(p)) ::kill(p, SIGKILL);
  }
}

// The parent-death guard itself, as any user: a child started through ChildProcess by a
// process that is then killed with -9 (which can clean up nothing) dies too. It fails when
// become_child does not set PR_SET_PDEATHSIG.
TEST(ChildProcess, DiesWithItsParent) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  if (parent == 0) {
    ChildProcess child(spec({"/bin/sleep", "60"}));
    const pid_t pid = child.pid();
    [[maybe_unused]] ssize_t n = ::write(report[1], &pid, sizeof pid);
    ::pause();
    ::_exit(0);
  }
  pid_t child = 0;
  ASSERT_EQ(::read(report[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  // Once it runs `sleep` it has passed its set-up (the guard is set before execve): the kill
  // below then tests the guard, not the check for a parent that died before it.
  std::string comm;
  for (const std::int64_t end = monotonic_ns() + 10 * kSecond;
       comm != "sleep\n" && monotonic_ns() < end; ::usleep(10'000)) {
    comm = read_text_file("/proc/" + std::to_string(child) + "/comm");
  }
  ASSERT_EQ(comm, "sleep\n");
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  EXPECT_TRUE(gone_within(child, 5 * kSecond)) << "the child outlived its parent";
  if (!gone(child)) ::kill(child, SIGKILL);
}

// The test process adopts orphans (a subreaper), so a grandchild whose parent dies becomes
// our child and can be waited for.
TEST(ChildProcess, DiesWithItsParentEvenAfterDroppingToAnotherUser) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "changing uid needs root: this test drops the child to 'nobody' (setuid)";
  }
  const auto nobody = unprivileged_user_if_root();
  ASSERT_TRUE(nobody.has_value());
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  if (parent == 0) {
    // The "idbench" that starts a server as nobody, then is killed with -9.
    ChildSpec as_nobody = spec({"/bin/sleep", "60"});
    as_nobody.run_as = nobody;
    ChildProcess server(as_nobody);
    const pid_t pid = server.pid();
    [[maybe_unused]] ssize_t n = ::write(report[1], &pid, sizeof pid);
    ::pause();
    ::_exit(0);
  }
  pid_t server = 0;
  ASSERT_EQ(::read(report[0], &server, sizeof server), static_cast<ssize_t>(sizeof server));
  ::usleep(200'000);  // let the server finish its set-up (prctl) and exec
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  // The orphan is ours now; PR_SET_PDEATHSIG must have killed it.
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < 100 && r == 0; ++i) {
    r = ::waitpid(server, &status, WNOHANG);
    if (r == 0) ::usleep(50'000);
  }
  if (r == 0) {
    ::kill(server, SIGKILL);
    ::waitpid(server, nullptr, 0);
    FAIL() << "the server outlived its parent";
  }
  ASSERT_EQ(r, server);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace
}  // namespace idbench::plumbing
