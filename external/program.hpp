// program.hpp — a generator that lives outside idbench: any program speaking the line protocol.
//
// The protocol (docs/exec-protocol.md), from the program's side:
//   * stdin carries requests: a count N (decimal, 1..1000000) and a newline;
//   * the program answers with N IDs, one per line (a decimal 64-bit ID or UUID text), and
//     flushes;
//   * EOF on stdin means exit;
//   * stderr passes through to idbench's stderr;
//   * its node id is in the environment variable IDBENCH_NODE_ID (decimal).
//
//   ExecSpec spec{.command = "adapters/idbench-adapter python uuid1", .id_time = IdTime::uuid};
//   Program p(spec, /*node_id=*/3);
//   std::vector<Id> ids;
//   p.request(1000, ids);                    // one round trip, 1000 IDs appended
//
//   auto gen = make_external(spec, opts);    // a Generator: one Program per calling thread
//   const Variant v = exec_variant(spec);    // the description the harness reads
//
// Every failure of the program (it cannot start, exits early, hangs past the timeout, prints a
// malformed line, a line over 1 MiB or fewer IDs than asked) is a ProgramError naming the
// command, and for a bad line its number and text (escaped, one line); a hang after answers
// says how many IDs it answered ("stopped answering after N IDs"). Callers report it with
// exit 2 and keep what they gathered so far.
//
// Nothing outlives the caller: a Program is a contained plumbing::ChildProcess (its own process
// group under a supervisor that, at its end or the caller's, even by SIGKILL, kills every
// process it started, setsid or not), closed with EOF, then SIGTERM, then SIGKILL.
//
// Thread safety: a Program is thread-compatible (one caller at a time). The Generator from
// make_external() is thread-safe: each calling thread gets its own Program (node id node + k
// for the k-th thread to call, as the thread-local variant does).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generators/errors.hpp"
#include "generators/generator.hpp"
#include "generators/registry.hpp"

namespace idbench::external {

// The largest N one request may ask for.
inline constexpr std::uint64_t kMaxRequest = 1'000'000;
// The environment variable that carries the node id.
inline constexpr const char* kNodeIdEnv = "IDBENCH_NODE_ID";

// What the harness is told about a program: how to run it and the description a built-in
// variant has (`--exec`, `--id-time`, `--layout`, `--id-bits`, `--ordering`).
struct ExecSpec {
  std::string command;  // words split by split_command(); the first is the program
  IdTime id_time = IdTime::none;
  std::string layout = "twitter";    // read when id_time == IdTime::layout
  std::optional<IdWidth> width;      // nullopt: inferred from the first ID it prints
  Ordering ordering = Ordering::none;  // what it promises; the chaos analysis judges this
  std::uint64_t batch = 1000;        // IDs per request when used as a Generator
  std::int64_t timeout_ms = 10'000;  // per request, and for start-up plus the first answer
  std::vector<std::string> env;      // extra KEY=VALUE entries (server sockets, ...)
};

// The program failed; the message names the command (and line). Exit 2.
class ProgramError : public Error {
 public:
  using Error::Error;
};

// Splits a command into words: blanks separate, '…' and "…" quote (no escapes inside '…',
// \" and \\ inside "…"). Throws Error for an empty command or an unbalanced quote, saying so
// without naming the flag ("the program is empty").
std::vector<std::string> split_command(std::string_view command);

// The words a Program execs, checked before anything starts: the first, looked up on $PATH
// when it has no slash, must name an executable regular file. Throws Error saying what is
// wrong, without naming the flag ("the program is empty", "'/tmp' is a directory, not a
// program", "'x' not found on $PATH", "'./gen' is not executable").
std::vector<std::string> program_argv(std::string_view command);

// One running instance of the program.
class Program {
 public:
  // Starts the program with IDBENCH_NODE_ID=node_id and spec.env added to our environment.
  // Throws ProgramError when it cannot be started.
  Program(const ExecSpec& spec, std::uint64_t node_id);
  // Closes stdin (EOF: exit), waits up to 2 s, then SIGTERM, then SIGKILL to its group.
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // One round trip: writes "n\n", reads n lines, appends the IDs to `out`. Throws
  // ProgramError (and appends nothing) when the program does not answer with n good IDs
  // within spec.timeout_ms; the Program is then dead and further requests throw.
  void request(std::uint64_t n, std::vector<Id>& out);

  pid_t pid() const;
  const std::string& command() const;
  // The width of its IDs: spec.width, or what its first ID showed; nullopt before that.
  std::optional<IdWidth> width() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A Generator over the program: next() hands out IDs from requests of spec.batch IDs, one
// Program per calling thread. A ProgramError propagates from next(). width() is spec.width,
// else 64 for IdTime::layout and none, 128 for the others (uuid, uuidv7, ulid, ksuid).
std::unique_ptr<Generator> make_external(const ExecSpec& spec, const GeneratorOptions& options);

// The description the harness reads: name "exec", family "external", the spec's width,
// ordering and id_time, time_based when id_time != none, node_ids per_thread, no default
// matrices; `make` builds make_external(spec, options). Throws Error when the spec is not
// valid (empty command, a layout that does not parse for IdTime::layout).
Variant exec_variant(const ExecSpec& spec);

}  // namespace idbench::external
