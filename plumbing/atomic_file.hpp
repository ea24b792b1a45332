// atomic_file.hpp — the one way idbench writes an output file: never half-written, never
// replacing what it should write through.
//
//   OutputFile out("ids.txt");          // regular file or new path: a unique temp file beside it
//   out.write("1\n2\n");                // every write checked (ENOSPC, EIO, a closed stdout...)
//   out.commit();                       // flush, fsync, close, rename into place, fsync the dir
//
// What the target is decides how it is written:
//   * a regular file, or a path that does not exist: written to an unnamed file in the
//     target's directory (O_TMPFILE), which no signal or SIGKILL can leave behind; commit()
//     links it as `<dir>/.<name>.tmp-<pid>-<n>` (unique per writer, also between threads and
//     processes) and renames that over the target at once. Where the file system has no
//     O_TMPFILE, it is that named file from the start. Destroyed without commit, or failing,
//     it removes the temp file, so the old file stays intact and nothing is left behind;
//   * a symlink: resolved first; the link's final target is written as above, the link stays;
//   * anything else that can be opened for writing (/dev/stdout, /dev/null, a FIFO, a tty,
//     a character device): written through, never replaced;
//   * a directory, a missing parent directory, an unwritable place: OutputError at once.
//   An empty path or "-" is standard output (written through; commit() flushes and checks it).
//
// `sweep_stale_temp_files(dir)` removes named temp files of writers whose process is gone (a
// run killed between link and rename, or on a file system without O_TMPFILE), and is called
// by every command that writes into a directory before it starts.
//
// Thread safety: an OutputFile is thread-compatible; different objects may be used at once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/error.hpp"

namespace idbench::plumbing {

// Any failure to create, write or commit an output. The message names the path and the
// cause in one line ("cannot write ids.txt: No space left on device"). Exit status 2.
class OutputError : public Error {
 public:
  using Error::Error;
};

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile(OutputFile&&) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;

  void write(std::string_view bytes);
  // Makes the output visible: see the header comment. Throws OutputError; after a throw the
  // target is as it was before this object existed.
  void commit();
  // Removes the temp file without committing (idempotent; the destructor does it too).
  void abandon() noexcept;
  // Bytes written so far (buffered or not).
  std::size_t bytes_written() const { return written_; }

  // The path the user gave, for messages.
  const std::string& path() const { return path_; }
  // True when the target is written through (not a regular file).
  bool writes_through() const { return through_; }

 private:
  friend void commit_all(std::vector<OutputFile>& files);
  void flush_buffer();
  void finish();   // flush, fsync, close (an unnamed file stays open until publish())
  void publish();  // rename the finished temp file into place, fsync the directory
  void close_fd();
  void name_unnamed();
  [[noreturn]] void fail(const char* what, int err);

  std::string path_;        // as given
  std::string final_path_;  // symlinks resolved
  std::string temp_path_;   // empty when written through or (until publish()) unnamed
  std::string buffer_;      // bytes not yet handed to write(2)
  std::size_t written_ = 0;
  int fd_ = -1;
  bool through_ = false;
  bool unnamed_ = false;  // an O_TMPFILE temp file, named only by publish()
  bool done_ = false;
};

// Writes `content` to `path` as above, in one call.
void write_file_atomically(const std::string& path, std::string_view content);

// Several outputs committed all or none: every file is written completely first; only then
// are they renamed into place, one by one. If any write fails no target is touched.
// (The renames themselves are not one atomic step; a crash between two renames leaves some
// new files and some old ones, never a half-written one.)
void commit_all(std::vector<OutputFile>& files);

// Removes `.<name>.tmp-<pid>-<n>` files in `dir` whose pid no longer runs; returns how many.
int sweep_stale_temp_files(const std::string& dir);

}  // namespace idbench::plumbing
