// file_tree.cpp — recursive copies and hand-overs of directory trees.
#include "plumbing/file_tree.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "plumbing/error.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

}  // namespace

void copy_tree(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) throw Error(fmt::format("cannot copy {} to {}: {}", from, to, ec.message()));
}

void give_tree(const std::string& path, uid_t uid, gid_t gid) {
  const auto hand_over = [&](const fs::path& p) {
    if (::lchown(p.c_str(), uid, gid) != 0) {
      throw Error(
          fmt::format("cannot give {} to uid {}: {}", p.string(), uid, std::strerror(errno)));
    }
  };
  hand_over(path);
  for (const auto& entry : fs::recursive_directory_iterator(path)) hand_over(entry.path());
}

}  // namespace idbench::plumbing
