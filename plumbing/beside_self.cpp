// beside_self.cpp — a program built beside the running executable (beside_self.hpp).
#include "plumbing/beside_self.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "plumbing/error.hpp"

namespace idbench::plumbing {

std::string program_beside_self(std::string_view name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / name;
    if (fs::exists(beside, ec)) return beside.string();
  }
  throw Error(fmt::format("{} not found beside this executable; build it (ninja {})", name, name));
}

}  // namespace idbench::plumbing
