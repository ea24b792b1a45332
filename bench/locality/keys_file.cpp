// keys_file.cpp — reading `locality --keys FILE` (see keys_file.hpp).
#include "bench/locality/keys_file.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "generators/errors.hpp"

namespace idbench::locality {

std::string printable_excerpt(std::string_view line) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (std::size_t i = 0; i < line.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (line.size() > kMax) out += "...";
  return out;
}

namespace {

Id parse_key(const std::string& line, IdWidth width, const std::string& where) {
  if (width == IdWidth::bits128) {
    auto u = Uuid::parse(line);
    if (!u) throw Error(fmt::format("{}: not a UUID: '{}'", where, printable_excerpt(line)));
    return Id::from_uuid(*u);
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
  if (ec != std::errc() || end != line.data() + line.size()) {
    throw Error(fmt::format("{}: not a decimal 64-bit key: '{}'", where, printable_excerpt(line)));
  }
  return Id::from_u64(v);
}

// A key is a few dozen bytes; a line past 1 MiB (the line `check` refuses too) is a device or a
// binary file, and reading on would hold it all: `--keys /dev/zero` grew ~190 MB/s, unending.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// The next line of `in` into `line`, without its '\n'; false at the end of the file.
bool next_line(std::istream& in, std::string& line, const std::string& path, std::uint64_t number) {
  line.clear();
  for (int c = in.get(); c != std::char_traits<char>::eof(); c = in.get()) {
    if (c == '\n') return true;
    if (line.size() == kMaxLineBytes) {
      throw Error(fmt::format("{}:{}: a line longer than 1 MiB: not a file of keys", path, number));
    }
    line.push_back(static_cast<char>(c));
  }
  return !line.empty();
}

}  // namespace

KeyStream read_keys_file(const std::string& path, std::uint64_t rows) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(fmt::format("{} is a directory, not a file of keys", path));
  }
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read {}", path));
  KeyStream out;
  out.description = "keys from " + path;
  std::string line;
  std::uint64_t number = 0;
  bool decided = false;
  while (out.keys.size() < rows && next_line(in, line, path, number + 1)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (!decided) {
      out.width = line.size() == 32 || line.size() == 36 ? IdWidth::bits128 : IdWidth::bits64;
      decided = true;
    }
    out.keys.push_back(parse_key(line, out.width, fmt::format("{}:{}", path, number)));
  }
  if (in.bad()) throw Error(fmt::format("cannot read {}: read error at line {}", path, number + 1));
  if (out.keys.empty()) throw Error(fmt::format("{}: no keys", path));
  return out;
}

}  // namespace idbench::locality
