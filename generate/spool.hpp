// spool.hpp — an unnamed temp file that holds one thread's IDs until they join a shared output.
//
//   Spool spool;                   // O_TMPFILE under plumbing::temp_root() ($TMPDIR or /tmp)
//   spool.write("7\n8\n");         // every write checked
//   spool.drain_into(out);         // appends everything written, in order, to an OutputFile
//
// The file has no name from the start, so nothing is left behind when the run ends in any way,
// SIGKILL included. Draining reads by offset and does not consume: draining twice appends twice.
//
// Errors: idbench::Error naming the temp root and the cause ("cannot spool IDs under /tmp: No
// space left on device") when the file cannot be made, written or read; what `out` throws
// (plumbing::OutputError) passes through.
//
// Thread safety: thread-compatible; different Spools may be used at once.
#pragma once

#include <string>
#include <string_view>

#include "plumbing/atomic_file.hpp"

namespace idbench::generate {

class Spool {
 public:
  Spool();
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  void write(std::string_view bytes);
  // Appends everything written so far to `out`.
  void drain_into(plumbing::OutputFile& out) const;

 private:
  [[noreturn]] void fail() const;

  std::string root_;  // the directory it lives under, for messages
  int fd_ = -1;
};

}  // namespace idbench::generate
