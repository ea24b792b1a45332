// exec_options.cpp — the `--exec` flags and the ExecSpec they describe.
#include "external/exec_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "plumbing/enum_names.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::external {

CLI::Option* add_exec_options(CLI::App* cmd, ExecArgs& args) {
  // A program that cannot run is said while the command line is read, in one line, before
  // anything starts (not as an exec failure and exit 127 of the first instance).
  const CLI::Validator runnable(
      [](std::string& command) {
        try {
          program_argv(command);
        } catch (const Error& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      "", "a program that can run");
  CLI::Option* exec =
      cmd->add_option("--exec", args.command,
                      "an external program instead of --variant: 'CMD ARGS...' speaking "
                      "the line protocol (docs/exec-protocol.md); its node id is in "
                      "$IDBENCH_NODE_ID")
          ->check(runnable);
  cmd->add_option("--id-time", args.id_time,
                  "--exec: how its IDs carry time: layout (--layout), uuid (v1/v6/v7), uuidv7, "
                  "ulid, ksuid (its first 16 bytes), none")
      ->capture_default_str()
      ->check(CLI::IsMember(plumbing::names_in(kIdTimeNames)))
      ->needs(exec);
  cmd->add_option("--id-bits", args.id_bits,
                  "--exec: 64 (decimal IDs) or 128 (UUIDs); default from --id-time")
      ->check(CLI::IsMember({64u, 128u}))
      ->needs(exec);
  cmd->add_option("--ordering", args.ordering,
                  "--exec: the order it promises: k_sorted, k_sorted_by_tick, "
                  "monotone_per_stream, none")
      ->capture_default_str()
      ->check(CLI::IsMember(plumbing::names_in(kOrderingNames)))
      ->needs(exec);
  cmd->add_option("--batch", args.batch, "--exec: IDs per request")
      ->capture_default_str()
      ->check(plumbing::WholeNumber(1, kMaxRequest))
      ->needs(exec);
  cmd->add_option("--timeout-ms", args.timeout_ms,
                  "--exec: how long one answer may take (start-up included)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3'600'000}))
      ->needs(exec);
  return exec;
}

ExecSpec to_exec_spec(const ExecArgs& args, const std::string& layout) {
  ExecSpec spec;
  spec.command = args.command;
  const auto id_time = id_time_named(args.id_time);
  if (!id_time) {
    throw Error(fmt::format("--id-time '{}' is not one of: {}", args.id_time,
                            fmt::join(plumbing::names_in(kIdTimeNames), ", ")));
  }
  spec.id_time = *id_time;
  spec.layout = layout;
  if (args.id_bits) spec.width = *args.id_bits == 128 ? IdWidth::bits128 : IdWidth::bits64;
  const auto ordering = plumbing::value_in(kOrderingNames, args.ordering);
  if (!ordering) {
    throw Error(fmt::format("--ordering '{}' is not one of {}", args.ordering,
                            fmt::join(plumbing::names_in(kOrderingNames), ", ")));
  }
  spec.ordering = *ordering;
  spec.batch = args.batch;
  spec.timeout_ms = args.timeout_ms;
  return spec;
}

std::vector<std::string> exec_flags(const ExecSpec& spec) {
  std::vector<std::string> out = {"--exec",       spec.command,
                                  "--id-time",    std::string(name_of(spec.id_time)),
                                  "--ordering",   std::string(name_of(spec.ordering)),
                                  "--batch",      std::to_string(spec.batch),
                                  "--timeout-ms", std::to_string(spec.timeout_ms)};
  if (spec.width) {
    out.insert(out.end(), {"--id-bits", *spec.width == IdWidth::bits128 ? "128" : "64"});
  }
  return out;
}

std::vector<NotForExec> layout_for_exec(const ExecArgs& args) {
  if (args.id_time == "layout") return {};
  return {{"--layout", fmt::format("it describes a program's IDs only with --id-time layout, not "
                                   "--id-time {}",
                                   args.id_time)}};
}

void refuse_for_exec(const CLI::App& cmd, const std::vector<NotForExec>& options) {
  if (cmd.get_option("--exec")->count() == 0) return;
  for (const NotForExec& o : options) {
    if (cmd.get_option(o.option)->count() > 0) {
      throw Error(fmt::format("{} does not apply to --exec: {}", o.option, o.why));
    }
  }
}

}  // namespace idbench::external
