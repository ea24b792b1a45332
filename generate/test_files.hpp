// test_files.hpp — what generate's tests read back: file contents, lines, directory listings.
//
//   EXPECT_EQ(read_file(dir + "/ids.txt"), "old\n");
//   EXPECT_EQ(names_in(dir), std::vector<std::string>{"ids.txt"});   // no temp file beside it
//
// Thread safety: reentrant.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace idbench::generate::test_files {

// The whole file; empty when it is missing.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The names in `dir`, sorted: temp files show up here too (they start with a dot).
inline std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace idbench::generate::test_files
