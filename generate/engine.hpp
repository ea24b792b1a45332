// engine.hpp — `idbench generate`'s engine: IDs from T threads, timed apart from writing them.
//
//   GenerateOptions o;
//   o.variant = "cas";                 // or o.exec = ExecSpec{...}: an external program
//   o.generator.node = 3;              // layout, policy, first node id
//   o.threads = 2;
//   o.count = 1'000'000;
//   o.out = "ids.txt";                 // or o.out_dir = "dir": dir/thread-<t>.txt
//   const GenerateResult r = run_generate(o);
//   if (!r.refusal.empty()) ...        // a generator refused: its IDs before it are written
//
// Measuring does not format: each thread issues a chunk of IDs into memory, timed on the
// monotonic clock, then encodes and writes that chunk outside the timed part. So the seconds
// returned are the generator's, not the disk's, and memory stays bounded (one chunk per thread)
// whatever the count. Thread t issues count / T IDs, one more when t < count % T.
//
// A variant's one generator is shared by the T threads. With `exec`, thread t runs an instance
// of its own with node id generator.node + t, so thread t's IDs (thread-<t>.txt, or the t-th
// block of one output) always come from that node id. Where they are written: sink.hpp.
//
// How a run ends:
//   * every thread issued its share: the outputs are committed;
//   * a generator refused (ClockError): that thread stops, the others finish; what was issued is
//     written and committed, and `refusal` holds the message (the CLI exits 3);
//   * an exec program failed (external::ProgramError): every thread stops at its next chunk;
//     what was issued is written and committed, whole lines, a valid file, and `program_error`
//     holds the message (the CLI exits 2);
//   * anything else (an OutputError naming the file, a NodeError, ...): every thread stops, the
//     error is rethrown here, and no output is committed: each target is as it was, and no
//     temp file is left;
//   * with `exec`, a SIGINT/SIGTERM/SIGHUP kills every program at once (a
//     plumbing::InterruptGuard lives for the run) and the run throws plumbing::Interrupted, as
//     in the case above: nothing committed, nothing left.
//
// Errors before anything runs: idbench::Error for options that do not fit (neither or both of
// variant and exec, no threads, a count over kMaxCount), and whatever building the generators
// throws (an unknown variant, a node id the layout cannot hold, an exec spec that is not valid).
//
// Thread safety: reentrant for a variant. With `exec` it installs the process's signal handlers
// for the run, so one such run at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/id_file.hpp"
#include "external/program.hpp"
#include "generators/generator.hpp"

namespace idbench::generate {

// 2^40 IDs is 8 TiB in binary: beyond any disk this harness runs on, so a larger count is a
// mistake (a negative number wrapped, an exponent) rather than a plan.
inline constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 40;

struct GenerateOptions {
  std::string variant;                     // a registry name; empty when `exec` is set
  std::optional<external::ExecSpec> exec;  // an external program in the variant's place
  GeneratorOptions generator;              // layout, policy, node (exec: the first node id)
  unsigned threads = 1;
  std::uint64_t count = 0;  // IDs in total, 0..kMaxCount
  std::string out;          // one output; empty or "-": standard output
  std::string out_dir;      // when set, one file per thread there instead
  FileFormat format = FileFormat::text;
};

struct ThreadOutcome {
  std::uint64_t issued = 0;   // IDs issued, all of them written
  double issue_seconds = 0;   // monotonic time spent in next(), writing excluded
  std::string refusal;        // the generator's refusal, if it stopped early
  std::string program_error;  // the exec program's failure, if it stopped early
};

struct GenerateResult {
  std::vector<ThreadOutcome> threads;  // [t] for thread t
  std::uint64_t issued = 0;            // summed over the threads
  double issue_seconds = 0;            // the slowest thread's
  double wall_seconds = 0;             // from the threads' start to the outputs' commit
  std::string program_error;           // the first thread's that has one, else empty
  std::string refusal;                 // the first thread's that has one, else empty
};

GenerateResult run_generate(const GenerateOptions& options);

}  // namespace idbench::generate
