// history.cpp — reading a node's record file (history.hpp).
#include "fault/history.hpp"

#include <cstdio>

namespace idbench::fault {

std::vector<Record> read_records(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  std::fseek(f, 0, SEEK_END);
  const long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  // A kill -9 can cut the last write short: keep the whole records, drop the rest.
  std::vector<Record> out(bytes > 0 ? static_cast<std::size_t>(bytes) / sizeof(Record) : 0);
  const std::size_t got = std::fread(out.data(), sizeof(Record), out.size(), f);
  std::fclose(f);
  out.resize(got);
  return out;
}

}  // namespace idbench::fault
