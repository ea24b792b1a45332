// idbench — the command-line front of the harness. Each subcommand lives in its own file.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "cli/chaos_command.hpp"
#include "cli/commands.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/comma_list.hpp"
#include "plumbing/leftovers.hpp"

namespace {

// A closed stdout or stderr would let the next open() take descriptor 1 or 2, and IDs meant
// for stdout would land in that file. Holding them open read-only makes every write to them
// fail (EBADF), which the writers report as exit 2.
void hold_closed_standard_descriptors() {
  for (int fd : {1, 2}) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int held = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (held >= 0 && held != fd) {
        ::dup2(held, fd);
        ::close(held);
      }
    }
  }
}

// `idbench bogus`: CLI11 would only say that a subcommand is required.
const char* unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return nullptr;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->check_name(argv[1])) return nullptr;
  }
  return argv[1];
}

// A comma-separated option that names one value twice (`real --clients 1,1`, `--flush 1,1`)
// would run the same cells twice and show them as two results; refused, as a repeated
// `--system` is. CLI11 checks each value alone, so this runs when a command's parsing is done,
// before the command itself.
void refuse_repeated_list_values(CLI::App& command) {
  command.parse_complete_callback([&command] {
    for (const CLI::Option* option : std::as_const(command).get_options()) {
      if (option->get_delimiter() != ',') continue;
      if (const std::string* twice = idbench::plumbing::first_repeat(option->results())) {
        throw CLI::ValidationError(option->get_name(), "'" + *twice + "' is listed twice");
      }
    }
  });
}

// Output of the report commands (check, decode, list) goes through stdio; a full disk or a
// closed stdout shows only at the final flush.
int flush_stdout(int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "idbench: cannot write standard output: %s\n", std::strerror(errno));
    return status == idbench::kExitOk ? idbench::kExitBadInput : status;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace idbench::cli;
  hold_closed_standard_descriptors();
  CLI::App app{"idbench: benchmark and check distributed unique-ID generators"};
  app.require_subcommand(1);
  app.fallthrough(false);
  add_list_command(app);
  add_decode_command(app);
  add_generate_command(app);
  add_check_command(app);
  add_chaos_command(app);
  add_locality_command(app);
  add_real_command(app);
  add_real_chaos_command(app);
  add_worker_ids_command(app);
  for (CLI::App* command : app.get_subcommands({})) refuse_repeated_list_values(*command);

  if (const char* name = unknown_subcommand(app, argc, argv)) {
    std::string names;
    for (const CLI::App* sub : std::as_const(app).get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    fmt::print(stderr, "idbench: unknown command '{}' (commands: {})\n", name, names);
    return kExitBadInput;
  }
  // What killed idbench processes left (temp dirs, database and etcd directories, PostgreSQL
  // segments, libfaketime's /dev/shm pairs), swept once before any command runs: a scan of
  // $TMPDIR and /dev/shm, well under a millisecond on a machine with few entries there.
  idbench::plumbing::sweep_leftovers();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    return flush_stdout(e.get_exit_code());
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "idbench: {} (run with --help for usage)\n", idbench::one_line(e.what()));
    return kExitBadInput;
  } catch (const idbench::plumbing::Interrupted&) {
    // Any command: the signal killed its children; unwinding removed its temp dirs.
    fmt::print(stderr, "idbench: interrupted; child processes killed, temp files removed\n");
    return idbench::kExitInterrupted;
  } catch (const idbench::ClockError& e) {
    fmt::print(stderr, "idbench: {}\n", e.what());
    return kExitRefused;
  } catch (const idbench::Refused& e) {
    fmt::print(stderr, "idbench: {}\n", e.what());
    return kExitRefused;
  } catch (const idbench::Error& e) {
    fmt::print(stderr, "idbench: {}\n", e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "idbench: out of memory (for check, a smaller --max-memory)\n");
    return kExitBadInput;
  } catch (const std::exception& e) {
    // Not an idbench::Error, so not made one line yet (a header-only helper's, which may
    // echo the command line).
    fmt::print(stderr, "idbench: {}\n", idbench::one_line(e.what()));
    return kExitBadInput;
  }
  return flush_stdout(kExitOk);
}
