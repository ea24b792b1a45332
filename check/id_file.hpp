// id_file.hpp — reading and writing files of IDs, the formats every idbench tool shares.
//
//   text    one ID a line: decimal for 64-bit IDs; a canonical UUID (or 32 hex digits) for
//           128-bit ones. The width is taken from the first line.
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
#include <cstdio>
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

// `binary_width` is used only for binary files.
IdStream read_id_file(const std::string& path, FileFormat format,
                      IdWidth binary_width = IdWidth::bits64);

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
