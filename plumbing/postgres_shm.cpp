// postgres_shm.cpp — PostgreSQL's SysV interlock segment, found by its key and header, removed
// once unattached.
#include "plumbing/postgres_shm.hpp"

#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace idbench::plumbing {
namespace {

// PostgreSQL tries its data directory's inode as the key, then the next keys while they are
// taken: far fewer than this many.
constexpr std::uint32_t kKeysTried = 1024;
// The number PostgreSQL's segment header starts with.
constexpr std::int32_t kPostgresMagic = 679834894;
// A killed server's processes take a moment to exit and detach.
constexpr int kDetachWaitMs = 2000;
constexpr int kPollMs = 10;

// The header at the start of PostgreSQL's segment, as laid out on LP64 Linux: what the segment
// says about the data directory it guards.
struct Header {
  std::int32_t magic;
  std::int32_t creator_pid;
  std::uint64_t total_size;
  std::uint64_t free_offset;
  std::uint32_t dsm_control;
  const void* index;
  dev_t device;
  ino_t inode;
};
static_assert(sizeof(Header) == 56, "the layout of PostgreSQL's header on LP64 Linux");

struct Segment {
  key_t key;
  int shmid;
};

// Every segment: /proc/sysvipc/shm has a line of column names, then key and shmid first.
std::vector<Segment> segments() {
  std::ifstream in("/proc/sysvipc/shm");
  std::vector<Segment> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long long key = 0;
    int shmid = 0;
    if (fields >> key >> shmid) out.push_back({static_cast<key_t>(key), shmid});
  }
  return out;
}

// True when PostgreSQL would have chosen `key` for the directory with this inode.
bool key_of(key_t key, const struct stat& dir) {
  return static_cast<std::uint32_t>(key) - static_cast<std::uint32_t>(dir.st_ino) < kKeysTried;
}

// True when the segment's header is PostgreSQL's and names the directory `dir`.
bool guards(int shmid, const struct stat& dir) {
  shmid_ds ds{};
  if (::shmctl(shmid, IPC_STAT, &ds) != 0 || ds.shm_segsz < sizeof(Header)) return false;
  const void* at = ::shmat(shmid, nullptr, SHM_RDONLY);
  if (at == reinterpret_cast<void*>(-1)) return false;
  Header h{};
  std::memcpy(&h, at, sizeof h);
  ::shmdt(at);
  return h.magic == kPostgresMagic && h.device == dir.st_dev && h.inode == dir.st_ino;
}

// Removes the segment once no process is attached (waiting a bounded time for a dying
// server's processes); leaves it to a live one.
bool remove_when_unattached(int shmid) {
  for (int waited = 0;; waited += kPollMs) {
    shmid_ds ds{};
    if (::shmctl(shmid, IPC_STAT, &ds) != 0) return false;  // gone already
    if (ds.shm_nattch == 0) return ::shmctl(shmid, IPC_RMID, nullptr) == 0;
    if (waited >= kDetachWaitMs) return false;
    ::usleep(kPollMs * 1000);
  }
}

}  // namespace

int remove_postgres_segments(const std::vector<std::string>& dirs) {
  std::vector<struct stat> ids;
  for (const std::string& dir : dirs) {
    struct stat st {};
    // lstat: a link is not the directory it points to.
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) ids.push_back(st);
  }
  int removed = 0;
  if (ids.empty()) return removed;
  for (const Segment& s : segments()) {
    for (const struct stat& dir : ids) {
      if (key_of(s.key, dir) && guards(s.shmid, dir)) {
        removed += remove_when_unattached(s.shmid) ? 1 : 0;
        break;
      }
    }
  }
  return removed;
}

}  // namespace idbench::plumbing
