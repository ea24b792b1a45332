// idbench — the command-line front of the harness. Each subcommand lives in its own file.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "chaos/chaos_command.hpp"
#include "cli/commands.hpp"
#include "generators/errors.hpp"

int main(int argc, char** argv) {
  using namespace idbench::cli;
  CLI::App app{"idbench: benchmark and check distributed unique-ID generators"};
  app.require_subcommand(1);
  app.fallthrough(false);
  add_list_command(app);
  add_decode_command(app);
  add_generate_command(app);
  add_check_command(app);
  add_chaos_command(app);
  add_locality_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "idbench: {}\nRun with --help for usage.\n", e.what());
    return kExitBadInput;
  } catch (const idbench::ClockError& e) {
    fmt::print(stderr, "idbench: {}\n", e.what());
    return kExitRefused;
  } catch (const idbench::Error& e) {
    fmt::print(stderr, "idbench: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitOk;
}
