// sink.hpp — where generate's threads write their IDs: one output for all, or one file each.
//
//   SinkSpec spec;
//   spec.out = "ids.txt";
//   spec.threads = 2;
//   Sink sink(spec);
//   std::string scratch;
//   sink.write(0, ids_of_thread_0, scratch);    // from thread 0
//   sink.write(1, ids_of_thread_1, scratch2);   // from thread 1, at the same time
//   sink.commit();                              // after both threads are done
//
// One output (`out`; empty or "-" is standard output) holds thread 0's IDs, then thread 1's,
// and so on, each thread's in the order it wrote them: thread 0 writes the output directly,
// thread t >= 1 into a Spool (an unnamed temp file) that commit() appends in thread order.
// With `out_dir`, thread t writes `<out_dir>/thread-<t>.txt` (`.bin` for binary), and commit()
// makes them all visible or none. Every output goes through plumbing::OutputFile: a regular
// file is written to a temp file and renamed into place by commit(); a Sink destroyed without
// commit() leaves every target as it was and no temp file behind. The constructor first sweeps
// the output directory of temp files whose writer is gone (a killed run's).
//
// Errors: plumbing::OutputError naming the file and the cause ("cannot write /dev/full: No
// space left on device"), from the constructor, write() or commit(); idbench::Error when a
// spool cannot be made or written.
//
// Thread safety: write() may be called at once from different threads for different `thread`
// values (each thread writes only its own file or spool; no locks); one thread may write a
// given `thread` at a time. The constructor and commit() must not overlap any write().
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "check/id_file.hpp"
#include "generate/spool.hpp"
#include "generators/id.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench::generate {

struct SinkSpec {
  std::string out;      // one output for all threads; empty or "-": standard output
  std::string out_dir;  // when set, one file per thread in this directory (`out` is not read)
  unsigned threads = 1;
  FileFormat format = FileFormat::text;
  IdWidth width = IdWidth::bits64;
};

class Sink {
 public:
  explicit Sink(const SinkSpec& spec);
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  // Encodes `ids` (into `scratch`, the caller's buffer) and appends them to `thread`'s part.
  void write(unsigned thread, std::span<const Id> ids, std::string& scratch);
  // Makes every output visible (see the header comment). Call once, after the last write().
  void commit();

 private:
  FileFormat format_;
  IdWidth width_;
  std::optional<plumbing::OutputFile> shared_;  // one output: thread 0 writes here
  std::vector<std::unique_ptr<Spool>> spools_;  // one output: [t] for t >= 1 ([0] is null)
  std::vector<plumbing::OutputFile> files_;     // out_dir: [t] is thread-<t>
};

// The file thread `t` writes under `out_dir`: "<out_dir>/thread-<t>.txt" (".bin" for binary).
std::string thread_file(const std::string& out_dir, unsigned t, FileFormat format);

}  // namespace idbench::generate
