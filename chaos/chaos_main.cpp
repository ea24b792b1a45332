// idbench-chaos — `idbench chaos` on its own: the same command and exit statuses, for the
// chaos tests and for run_chaos.sh when the idbench binary at hand was built without it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "chaos/chaos_command.hpp"
#include "cli/commands.hpp"
#include "generators/errors.hpp"

int main(int argc, char** argv) {
  using namespace idbench::cli;
  CLI::App app{"idbench-chaos: clock faults under libfaketime (the `idbench chaos` command)"};
  app.require_subcommand(1);
  add_chaos_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "idbench-chaos: {}\nRun with --help for usage.\n", e.what());
    return kExitBadInput;
  } catch (const idbench::Error& e) {
    fmt::print(stderr, "idbench-chaos: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitOk;
}
