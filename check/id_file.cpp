// id_file.cpp — reading and writing the shared ID file formats (text and binary).
#include "check/id_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

namespace idbench {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_or_throw(const std::string& path, const char* mode) {
  FilePtr f(std::fopen(path.c_str(), mode));
  if (!f) throw IdFileError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  return f;
}

bool is_decimal(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Parses the text format in 1 MiB chunks; a line never exceeds 64 characters in a valid file.
void read_text(const std::string& path, IdStream& out) {
  FilePtr f = open_or_throw(path, "rb");
  std::vector<char> buf(1 << 20);
  std::size_t have = 0;
  std::size_t line_no = 0;
  bool width_known = false;
  bool eof = false;
  const auto parse_line = [&](std::string_view line) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      throw IdFileError(fmt::format("{}:{}: empty line (expected one ID per line)", path, line_no));
    }
    if (!width_known) {
      out.width = is_decimal(line) ? IdWidth::bits64 : IdWidth::bits128;
      width_known = true;
    }
    if (out.width == IdWidth::bits64) {
      std::uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
      if (ec != std::errc{} || ptr != line.data() + line.size() || !is_decimal(line)) {
        throw IdFileError(fmt::format("{}:{}: '{}' is not a decimal 64-bit ID", path, line_no,
                                      line.substr(0, 64)));
      }
      out.ids64.push_back(v);
    } else {
      const auto uuid = Uuid::parse(line);
      if (!uuid) {
        throw IdFileError(fmt::format("{}:{}: '{}' is not a UUID (the file's first line was)", path,
                                      line_no, line.substr(0, 64)));
      }
      out.ids128.push_back(Id::from_uuid(*uuid));
    }
  };
  while (!eof) {
    const std::size_t n = std::fread(buf.data() + have, 1, buf.size() - have, f.get());
    if (n == 0) {
      if (std::ferror(f.get())) throw IdFileError(fmt::format("{}: read error", path));
      eof = true;
    }
    have += n;
    std::size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(buf.data() + start, '\n', have - start);
      if (nl == nullptr) break;
      const std::size_t end = static_cast<const char*>(nl) - buf.data();
      parse_line(std::string_view(buf.data() + start, end - start));
      start = end + 1;
    }
    if (eof && start < have) {  // a last line without a newline
      parse_line(std::string_view(buf.data() + start, have - start));
      start = have;
    }
    if (!eof && start == 0 && have == buf.size()) {
      throw IdFileError(
          fmt::format("{}:{}: line longer than {} bytes", path, line_no + 1, buf.size()));
    }
    std::memmove(buf.data(), buf.data() + start, have - start);
    have -= start;
  }
}

void read_binary(const std::string& path, IdStream& out) {
  FilePtr f = open_or_throw(path, "rb");
  const std::size_t record = out.width == IdWidth::bits64 ? 8 : 16;
  std::vector<std::uint8_t> buf(record << 16);
  for (;;) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    if (n == 0) break;
    if (n % record != 0) {
      // fread returns short only at EOF or on error, so a remainder means a truncated file.
      throw IdFileError(
          fmt::format("{}: size is not a multiple of {} bytes (truncated?)", path, record));
    }
    for (std::size_t i = 0; i < n; i += record) {
      if (record == 8) {
        std::uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = v << 8 | buf[i + b];
        out.ids64.push_back(v);
      } else {
        Uuid u;
        std::memcpy(u.bytes.data(), &buf[i], 16);
        out.ids128.push_back(Id::from_uuid(u));
      }
    }
  }
  if (std::ferror(f.get())) throw IdFileError(fmt::format("{}: read error", path));
}

}  // namespace

IdStream read_id_file(const std::string& path, FileFormat format, IdWidth binary_width) {
  IdStream out;
  out.name = path;
  out.width = binary_width;
  if (format == FileFormat::text) {
    read_text(path, out);
  } else {
    read_binary(path, out);
  }
  return out;
}

void encode_ids(std::string& out, std::span<const Id> ids, FileFormat format, IdWidth width) {
  out.reserve(out.size() + ids.size() * (format == FileFormat::text ? 37 : 16));
  for (const Id& id : ids) {
    if (format == FileFormat::text) {
      out += to_text(id, width);
      out += '\n';
    } else if (width == IdWidth::bits64) {
      for (int b = 0; b < 8; ++b) out += static_cast<char>(id.lo >> (8 * b));
    } else {
      const Uuid u = id.to_uuid();
      out.append(reinterpret_cast<const char*>(u.bytes.data()), u.bytes.size());
    }
  }
}

IdFileWriter::IdFileWriter(std::string path, FileFormat format, IdWidth width)
    : out_(std::move(path)), format_(format), width_(width) {}

void IdFileWriter::write(std::span<const Id> ids) {
  scratch_.clear();
  encode_ids(scratch_, ids, format_, width_);
  out_.write(scratch_);
}

}  // namespace idbench
