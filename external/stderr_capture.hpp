// stderr_capture.hpp — a program's stderr kept in a file instead of passed through, and read
// back afterwards: the summary line an adapter prints at exit ("NAME: key=N key=N …", e.g.
// "idbench-mariadb-adapter: retries=3 deadlocks=0 failovers=1") becomes counters the harness
// records, and the other lines are kept for whoever shows them. So a --quiet run is quiet and
// loses nothing.
//
//   plumbing::TempDir dir("idbench-x");
//   const std::string path = dir.path() + "/client-0.stderr";
//   { Program p(capturing_stderr(spec, path), 0); ... }   // closed: its summary is written
//   CapturedStderr got;
//   read_captured_stderr(path, got);                     // got.counters, got.lines
//
// The program runs under `sh -c 'exec 2>>FILE; exec "$@"' …`: several programs may append to
// one file (a client that starts its adapter again after a failure), and every summary line
// in the file counts once, summed with the others.
//
// Thread safety: pure functions; read a file only after the programs writing it have exited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "external/program.hpp"

namespace idbench::external {

using Counters = std::map<std::string, std::uint64_t>;

struct CapturedStderr {
  std::optional<Counters> counters;  // summed; nullopt when no program printed a summary
  std::vector<std::string> lines;    // the other lines, the first kMaxLines of them
  static constexpr std::size_t kMaxLines = 20;
};

// The same program, its stderr appended to `path`.
ExecSpec capturing_stderr(const ExecSpec& spec, const std::string& path);

// A failure message of the wrapped program names the program as the user gave it (`given`),
// not the sh around it (`wrapped`).
std::string unwrapped(std::string message, const std::string& wrapped, const std::string& given);

// Adds what `path` holds to `into` (a missing file adds nothing).
void read_captured_stderr(const std::string& path, CapturedStderr& into);

// "NAME: key=N key=N …" → {key: N}; nullopt when the line is not such a summary.
std::optional<Counters> parse_counter_line(const std::string& line);

}  // namespace idbench::external
