// exec_options.hpp — the `--exec` flags, defined once for every command that accepts an
// external program in place of `--variant` (generate, locality, chaos).
//
//   ExecArgs exec;
//   CLI::Option* opt = add_exec_options(cmd, exec);   // --exec --id-time --id-bits --ordering
//   opt->excludes(variant);                            //   --batch --timeout-ms
//   ...
//   const external::ExecSpec spec = to_exec_spec(exec, layout);   // layout: the command's own
//   const Variant v = external::exec_variant(spec);               // --layout
//
// The description flags need --exec. `--layout` is not added here: every such command has
// one already (for the built-in variants), and the program's layout is read from it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "external/program.hpp"

namespace idbench::cli {

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
external::ExecSpec to_exec_spec(const ExecArgs& args, const std::string& layout);

}  // namespace idbench::cli
