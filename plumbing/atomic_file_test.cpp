// atomic_file_test.cpp — each way an output could be half-written, replaced or leaked, planted.
#include "plumbing/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "idbench-atomic-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void spit(const std::string& p, const std::string& content) {
    std::ofstream(p, std::ios::binary) << content;
  }
  // Every entry of the test directory, so a leaked temp file shows up by name.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, NewFileAppearsOnlyAtCommit) {
  OutputFile out(path("ids.txt"));
  out.write("1\n2\n");
  EXPECT_FALSE(fs::exists(path("ids.txt")));
  out.commit();
  EXPECT_EQ(slurp(path("ids.txt")), "1\n2\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"ids.txt"});
}

TEST_F(AtomicFileTest, DestroyedWithoutCommitLeavesOldFileAndNoTemp) {
  spit(path("ids.txt"), "old\n");
  {
    OutputFile out(path("ids.txt"));
    out.write("new\n");
  }
  EXPECT_EQ(slurp(path("ids.txt")), "old\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"ids.txt"});
}

TEST_F(AtomicFileTest, CharacterDeviceIsWrittenThroughNotReplaced) {
  // A private null device (root can mknod it), so a regression cannot break the real /dev/null.
  const std::string null_dev = path("null");
  if (::mknod(null_dev.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) GTEST_SKIP() << "no mknod";
  OutputFile out(null_dev);
  EXPECT_TRUE(out.writes_through());
  out.write("1\n");
  out.commit();
  struct stat st {};
  ASSERT_EQ(::stat(null_dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"null"});
}

TEST_F(AtomicFileTest, DevNullIsWrittenThrough) {
  OutputFile out("/dev/null");
  EXPECT_TRUE(out.writes_through());
  out.write("x");
  out.commit();
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(AtomicFileTest, FifoIsWrittenThroughNotReplaced) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  {
    OutputFile out(fifo);
    EXPECT_TRUE(out.writes_through());
    out.write("1\n2\n");
    out.commit();
  }
  reader.join();
  EXPECT_EQ(received, "1\n2\n");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"fifo"});
}

TEST_F(AtomicFileTest, SymlinkTargetIsWrittenAndLinkSurvives) {
  fs::create_directory(dir_ / "sub");
  spit(path("sub/target.txt"), "old\n");
  fs::create_symlink("sub/target.txt", dir_ / "link.txt");
  write_file_atomically(path("link.txt"), "new\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  EXPECT_EQ(slurp(path("sub/target.txt")), "new\n");
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.txt", "sub"}));
  EXPECT_EQ(fs::directory_iterator(dir_ / "sub")->path().filename(), "target.txt");
}

TEST_F(AtomicFileTest, DanglingSymlinkCreatesItsTarget) {
  fs::create_symlink("made.txt", dir_ / "link.txt");
  write_file_atomically(path("link.txt"), "x\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  EXPECT_EQ(slurp(path("made.txt")), "x\n");
}

TEST_F(AtomicFileTest, DevFullIsAnOutputErrorAtCommit) {
  OutputFile out("/dev/full");
  out.write("1\n");
  try {
    out.commit();
    FAIL() << "no error from /dev/full";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: No space left on device"), std::string::npos)
        << e.what();
  }
}

TEST_F(AtomicFileTest, FailingWriteKeepsOldFileAndLeavesNoTemp) {
  // A file-size limit makes write(2) fail with EFBIG, like a full disk does with ENOSPC.
  spit(path("ids.txt"), "old\n");
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    OutputFile out(path("ids.txt"));
    out.write(std::string(3 << 20, 'x'));
    out.commit();
  } catch (const OutputError& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("ids.txt: File too large"), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(slurp(path("ids.txt")), "old\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"ids.txt"});
}

// A file whose directory takes no new file cannot be replaced; once this said "No such file
// or directory" about /proc/version, which exists.
TEST_F(AtomicFileTest, AnExistingFileThatCannotBeReplacedIsSaidSo) {
  try {
    OutputFile out("/proc/version");
    FAIL() << "/proc/version was accepted as an output";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/version exists and cannot be replaced"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(AtomicFileTest, DirectoryAndMissingParentAreRefusedAtOnce) {
  EXPECT_THROW(OutputFile{dir_.string()}, OutputError);
  EXPECT_THROW(OutputFile{path("nodir/x.txt")}, OutputError);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFileTest, TwoWritersOfOnePathUseDistinctTempFiles) {
  // Two writers sharing a temp name once clobbered or removed each other's file.
  OutputFile a(path("node.hwm"));
  OutputFile b(path("node.hwm"));
  a.write("a\n");
  b.write("b\n");
  EXPECT_EQ(entries(), std::vector<std::string>{});  // unnamed until commit
  a.commit();
  EXPECT_EQ(slurp(path("node.hwm")), "a\n");
  b.commit();
  EXPECT_EQ(slurp(path("node.hwm")), "b\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"node.hwm"});
}

// A writer stopped by a signal it cannot handle (SIGINT or SIGTERM at their default action, as
// `generate --out f` has, or SIGKILL) runs no destructor: its temp file once stayed beside the
// output (64 MB after a SIGINT of `generate --variant cas`).
TEST_F(AtomicFileTest, AWriterKilledBySignalLeavesNoTempFile) {
  for (const int sig : {SIGINT, SIGTERM, SIGKILL}) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);  // a test runner may have started us with SIGINT ignored
      OutputFile out(path("ids.txt"));
      out.write(std::string(3 << 20, '1'));  // beyond the buffer: on disk, not only in memory
      (void)::write(ready[1], "w", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ::kill(child, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << strsignal(sig);
    EXPECT_EQ(entries(), std::vector<std::string>{}) << "after " << strsignal(sig);
    for (const auto& name : entries()) fs::remove(path(name));
  }
}

// A named temp file stays when a writer is killed between link and rename, or writes where
// there is no O_TMPFILE.
TEST_F(AtomicFileTest, StaleTempFilesOfDeadProcessesAreSwept) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  spit(path(fmt::format(".keep.txt.tmp-{}-0", child)), "half");   // its pid is gone
  spit(path(fmt::format(".live.txt.tmp-{}-0", ::getpid())), "");  // this process runs
  spit(path("notes.tmp-1-1"), "not ours\n");
  ASSERT_EQ(entries().size(), 3u);
  EXPECT_EQ(sweep_stale_temp_files(dir_.string()), 1);
  const auto left = entries();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_TRUE(left[0].starts_with(".live.txt.tmp-")) << left[0];
  EXPECT_EQ(left[1], "notes.tmp-1-1");
}

TEST_F(AtomicFileTest, CommitAllIsAllOrNone) {
  spit(path("a.txt"), "old a\n");
  std::vector<OutputFile> files;
  files.emplace_back(path("a.txt"));
  files.emplace_back("/dev/full");
  files[0].write("new a\n");
  files[1].write("b\n");
  EXPECT_THROW(commit_all(files), OutputError);
  EXPECT_EQ(slurp(path("a.txt")), "old a\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"a.txt"});
}

TEST_F(AtomicFileTest, CommitAllCommitsEveryFile) {
  std::vector<OutputFile> files;
  files.emplace_back(path("a.txt"));
  files.emplace_back(path("b.txt"));
  files[0].write("a\n");
  files[1].write("b\n");
  commit_all(files);
  EXPECT_EQ(slurp(path("a.txt")), "a\n");
  EXPECT_EQ(slurp(path("b.txt")), "b\n");
  EXPECT_EQ(entries(), (std::vector<std::string>{"a.txt", "b.txt"}));
}

TEST_F(AtomicFileTest, ClosedStandardOutputIsAnOutputError) {
  const int saved = ::dup(1);
  ASSERT_GE(saved, 0);
  ::close(1);
  bool threw = false;
  try {
    OutputFile out("");
  } catch (const OutputError& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("standard output"), std::string::npos) << e.what();
  }
  ::dup2(saved, 1);
  ::close(saved);
  EXPECT_TRUE(threw);
}

}  // namespace
}  // namespace idbench::plumbing
