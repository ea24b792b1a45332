// exec_options.hpp — the `--exec` flags, defined once for every command that accepts an
// external program in place of `--variant` (generate, locality, chaos, real) and for the chaos
// node, which is handed the same flags by its driver. Beside the program they describe, so a
// node reads them without depending on the command line above it.
//
//   ExecArgs exec;
//   CLI::Option* opt = add_exec_options(cmd, exec);   // --exec --id-time --id-bits --ordering
//   opt->excludes(variant);                            //   --batch --timeout-ms
//   ...
//   const ExecSpec spec = to_exec_spec(exec, layout);  // layout: the command's own --layout
//   const Variant v = exec_variant(spec);
//   refuse_for_exec(*cmd, {{"--policy", "the program keeps its own clock policy"}});
//
// The description flags need --exec. `--layout` is not added here: every such command has
// one already (for the built-in variants), and the program's layout is read from it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "external/program.hpp"

namespace idbench::external {

struct ExecArgs {
  std::string command;  // empty: no --exec
  std::string id_time = "none";
  std::optional<unsigned> id_bits;  // nullopt: from --id-time (uuid, uuidv7: 128; else 64)
  std::string ordering = "none";
  std::uint64_t batch = 1000;
  std::int64_t timeout_ms = 10'000;
};

// Adds the flags to `cmd`; returns the --exec option, for excludes() against --variant.
CLI::Option* add_exec_options(CLI::App* cmd, ExecArgs& args);

// The spec the flags describe, with the command's `--layout`. Throws idbench::Error on a value
// that is not valid (exec_variant() checks the rest).
ExecSpec to_exec_spec(const ExecArgs& args, const std::string& layout);

// The flags that add_exec_options() and to_exec_spec() read back into `spec`: what a driver
// hands a node process that runs the program (--id-bits only when spec.width is set). Not
// among them: spec.layout (the node's own --layout) and spec.env (no flag here carries it).
std::vector<std::string> exec_flags(const ExecSpec& spec);

// An option of a command that cannot apply to an --exec program, and why.
struct NotForExec {
  std::string option;  // "--policy"
  std::string why;     // "the program keeps its own clock policy"
};
// The command's `--layout` describes a program's IDs only with `--id-time layout`: that entry
// when --id-time is another, else none.
std::vector<NotForExec> layout_for_exec(const ExecArgs& args);
// When --exec was given on `cmd`, throws idbench::Error for the first of `options` given too:
// "--policy does not apply to --exec: the program keeps its own clock policy". An option
// silently ignored would make a run look like what it is not.
void refuse_for_exec(const CLI::App& cmd, const std::vector<NotForExec>& options);

}  // namespace idbench::external
