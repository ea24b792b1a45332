// options.hpp — the options of `idbench chaos` and what they parse into: one run, the matrix or
// --list. Defined beside the runs they configure, so that the command line (cli/) and the fuzz
// target that checks these options parse the one definition.
//
//   ChaosArgs args;
//   CLI::App* cmd = app.add_subcommand("chaos", "...");
//   add_chaos_options(cmd, args);   // every flag, each checked while the line is parsed
//
// A value refused here is refused with the chaos library's own words (rate_problem(),
// time_scale_problem()); what a flag means for a run is the driver's (driver.hpp) or the
// matrix's (matrix.hpp).
//
// Thread safety: parse on one thread; `args` must outlive the parse.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "chaos/driver.hpp"
#include "chaos/matrix.hpp"
#include "external/exec_options.hpp"

namespace idbench::chaos {

struct ChaosArgs {
  bool list = false;
  bool matrix = false;
  RunConfig run;
  MatrixConfig grid;
  bool json = false;
  bool quiet = false;
  std::string timeline;
  external::ExecArgs exec;
  std::vector<std::string> systems;  // --systems: real adapter systems the matrix runs too
};

// Adds every option of `idbench chaos` to `cmd`, each stored into `args`.
void add_chaos_options(CLI::App* cmd, ChaosArgs& args);

}  // namespace idbench::chaos
