// id_file.hpp — reading and writing files of IDs, the formats every idbench tool shares.
//
//   text    one ID a line: decimal for 64-bit IDs; a canonical UUID (or 32 hex digits) for
//           128-bit ones. The width is given, or taken from the first line (id_text.hpp
//           states the rule); an empty file has no width.
//   binary  little-endian u64 per 64-bit ID, or 16 bytes in network order per UUID; the width
//           cannot be seen in the bytes, so the reader is told (`--id-bits`).
//
// Readers reject bad input with `IdFileError`, whose message names the file and line.
// Writers go through plumbing::OutputFile: a regular file is replaced only when complete, a
// device, FIFO or /dev/stdout is written through, a symlink's target is written.
//
// Thread safety: functions are thread-compatible; an `IdFileWriter` is not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generators/errors.hpp"
#include "generators/id.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench {

enum class FileFormat { text, binary };

class IdFileError : public Error {
 public:
  using Error::Error;
};

// One file's IDs, in file order. 64-bit IDs are kept as u64 (8 bytes each) so that checking
// 100 M of them fits in memory comfortably; 128-bit ones as Id.
struct IdStream {
  std::string name;
  IdWidth width = IdWidth::bits64;
  std::vector<std::uint64_t> ids64;
  std::vector<Id> ids128;

  std::size_t size() const { return width == IdWidth::bits64 ? ids64.size() : ids128.size(); }
  Id at(std::size_t i) const {
    return width == IdWidth::bits64 ? Id::from_u64(ids64[i]) : ids128[i];
  }
};

// Reads one file of IDs in batches, never holding more than a batch and a 1 MiB buffer: the
// reader behind `check` at any size. Bad input throws IdFileError naming file and line.
class IdReader {
 public:
  // `width`: for text, nullopt means "from the first line"; for binary, nullopt means 64.
  IdReader(std::string path, FileFormat format, std::optional<IdWidth> width);
  ~IdReader();
  IdReader(const IdReader&) = delete;
  IdReader& operator=(const IdReader&) = delete;

  // Replaces `out` with the next up to `max` IDs; false when the file has no more.
  bool next(std::vector<Id>& out, std::size_t max);
  // nullopt until the first ID of a text file is read, and for an empty text file.
  std::optional<IdWidth> width() const { return width_; }
  const std::string& path() const { return path_; }
  // The file's size when it is a regular file, else 0 (a FIFO, stdin).
  std::uint64_t size_bytes() const { return size_; }

 private:
  bool refill();
  void parse_line(std::string_view line, std::vector<Id>& out);
  void take_records(std::vector<Id>& out, std::size_t max);

  std::string path_;
  FileFormat format_;
  std::optional<IdWidth> width_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::vector<char> buf_;
  std::size_t start_ = 0;  // first unread byte in buf_
  std::size_t have_ = 0;   // bytes in buf_
  std::uint64_t line_no_ = 0;
  bool eof_ = false;
};

// The whole file in memory. `width` as for IdReader.
IdStream read_id_file(const std::string& path, FileFormat format,
                      std::optional<IdWidth> width = std::nullopt);

// Appends `ids` to `out` in the file format (text lines, or binary records).
void encode_ids(std::string& out, std::span<const Id> ids, FileFormat format, IdWidth width);

// Writes IDs to `path` through a plumbing::OutputFile; `commit()` makes them visible.
// Destroyed without commit (an error on the way), it leaves the old file as it was.
// An empty path writes to stdout. Every failure is a plumbing::OutputError.
class IdFileWriter {
 public:
  IdFileWriter(std::string path, FileFormat format, IdWidth width);

  void write(std::span<const Id> ids);
  void commit() { out_.commit(); }

 private:
  plumbing::OutputFile out_;
  FileFormat format_;
  IdWidth width_;
  std::string scratch_;
};

}  // namespace idbench
