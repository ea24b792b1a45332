// temp_dir.cpp — private temp directories named by their owner pid, and the sweep of dead ones.
#include "plumbing/temp_dir.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "plumbing/error.hpp"
#include "plumbing/file_tree.hpp"
#include "plumbing/leftovers.hpp"
#include "plumbing/postgres_shm.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// mkdtemp replaces exactly these six characters.
constexpr std::size_t kRandomSuffix = 6;
// "idbench-" and at least one character naming what the directory is for.
constexpr std::size_t kFirstOwnerDash = 9;

// Removes a temp dir and everything in it, first the SysV segments of PostgreSQL data
// directories in it (the directory itself or one level down, where DbServer puts them):
// a killed server leaves its segment, which would otherwise outlive the directory until a
// reboot.
void remove_tree(const fs::path& dir, std::error_code& ec) {
  std::vector<std::string> dirs{dir.string()};
  std::error_code list_ec;
  for (const auto& entry : fs::directory_iterator(dir, list_ec)) {
    std::error_code kind_ec;
    if (fs::is_directory(entry.symlink_status(kind_ec))) dirs.push_back(entry.path().string());
  }
  remove_postgres_segments(dirs);
  fs::remove_all(dir, ec);
}

// The owner pid in "idbench-<what>-<pid>-XXXXXX" (what may contain dashes), or 0.
long owner_pid(std::string_view name) {
  if (!name.starts_with("idbench-")) return 0;
  if (name.size() < kRandomSuffix + 1) return 0;
  name.remove_suffix(kRandomSuffix);
  if (!name.ends_with('-')) return 0;
  name.remove_suffix(1);
  const std::size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash < kFirstOwnerDash) return 0;
  const std::string_view digits = name.substr(dash + 1);
  if (digits.empty() || digits.size() > 10) return 0;
  long pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

}  // namespace

std::string temp_root() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(kSystemTempRoot);
}

bool reachable_by(const std::string& dir, const RunAs& user) {
  std::error_code ec;
  for (fs::path p = fs::absolute(dir, ec);; p = p.parent_path()) {
    struct stat st {};
    if (ec || ::stat(p.c_str(), &st) != 0) return false;
    const mode_t search = st.st_uid == user.uid   ? S_IXUSR
                          : st.st_gid == user.gid ? S_IXGRP
                                                  : S_IXOTH;
    if ((st.st_mode & search) == 0) return false;
    if (p == p.root_path()) return true;
  }
}

TempDir::TempDir(std::string_view prefix) : TempDir(prefix, std::nullopt) {}

TempDir::TempDir(std::string_view prefix, const std::optional<RunAs>& user) {
  if (!prefix.starts_with("idbench-")) {
    throw Error(fmt::format("temp dir prefix '{}' does not start with idbench-", prefix));
  }
  sweep_stale_temp_dirs();
  const std::string root =
      !user || reachable_by(temp_root(), *user) ? temp_root() : std::string(kSystemTempRoot);
  std::string tmpl = fmt::format("{}/{}-{}-XXXXXX", root, prefix, ::getpid());
  if (::mkdtemp(tmpl.data()) == nullptr) {  // mkdtemp makes it 0700
    throw Error(fmt::format("cannot create a temp directory {}: {}", tmpl, std::strerror(errno)));
  }
  path_ = std::move(tmpl);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  remove_tree(path_, ec);  // best effort: what stays is swept by the next run
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

void TempDir::give_to(uid_t uid, gid_t gid) const { give_tree(path_, uid, gid); }

std::string TempDir::release() {
  std::string kept = std::move(path_);
  path_.clear();
  return kept;
}

int sweep_stale_temp_dirs() {
  const std::string root = temp_root();
  const bool elsewhere = fs::path(root).lexically_normal() != fs::path(kSystemTempRoot);
  return sweep_stale_temp_dirs(root) + (elsewhere ? sweep_stale_temp_dirs(kSystemTempRoot) : 0);
}

int sweep_stale_temp_dirs(const std::string& root) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (!pid_gone(owner_pid(name))) continue;
    // symlink_status: a link named like ours is not ours to follow.
    std::error_code kind_ec;
    if (!fs::is_directory(entry.symlink_status(kind_ec))) continue;
    std::error_code rm_ec;
    remove_tree(entry.path(), rm_ec);
    if (!rm_ec) ++removed;
  }
  return removed;
}

}  // namespace idbench::plumbing
