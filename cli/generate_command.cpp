// idbench generate — issue IDs from a variant, from T threads, to a file or stdout: the flags
// over the generate/ engine (generate/engine.hpp says how IDs are issued, timed and written).
//
//   idbench generate (--variant V | --exec 'CMD ARGS' [--id-time T] [--id-bits B] [--ordering O]
//                     [--batch N] [--timeout-ms N]) --count C [--layout L] [--policy P]
//       [--node N] [--threads T] [--out FILE | --out-dir DIR] [--format text|binary]
//
// Exit status: 0 done; 2 bad input, an output that cannot be written, or an --exec program that
// failed (the IDs gathered before it are kept); 3 a generator refused (the IDs before it are
// kept); 130 interrupted while --exec programs ran (they are killed, nothing is left).
#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "check/id_file.hpp"
#include "cli/commands.hpp"
#include "external/exec_options.hpp"
#include "generate/engine.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::cli {
namespace {

struct GenerateArgs {
  std::string variant;
  std::string layout = "twitter";
  std::string policy = "refuse";
  std::string node = "0";
  unsigned threads = 1;
  std::string count;
  std::string out;
  std::string out_dir;
  std::string format = "text";
  external::ExecArgs exec;
};

// A whole decimal number in 0..max, or an Error that names the flag and what is wrong.
std::uint64_t parse_whole(std::string_view flag, const std::string& text, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits_only =
      !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits_only && text.starts_with('-')) {
    throw Error(fmt::format("{} {} is negative; it must be 0..{}", flag, text, max));
  }
  if (!digits_only) {
    throw Error(fmt::format("{} '{}' is not a whole decimal number (digits only, e.g. 1000000)",
                            flag, text));
  }
  if (ec == std::errc::result_out_of_range || v > max) {
    throw Error(fmt::format("{} {} is out of range 0..{}", flag, text, max));
  }
  (void)ptr;
  return v;
}

std::string label(const GenerateArgs& args) {
  return args.exec.command.empty() ? args.variant : fmt::format("'{}'", args.exec.command);
}

void report(const GenerateArgs& args, const generate::GenerateResult& r) {
  if (r.issued > 0) {
    fmt::print(stderr, "{}: {} IDs from {} thread{} in {:.3f} s = {:.2f} M IDs/s\n", label(args),
               r.issued, args.threads, args.threads == 1 ? "" : "s", r.issue_seconds,
               r.issue_seconds > 0 ? r.issued / r.issue_seconds / 1e6 : 0.0);
  }
  if (r.issued > 0 && (!args.out.empty() || !args.out_dir.empty())) {
    fmt::print(stderr, "issued and written in {:.3f} s\n", r.wall_seconds);
  }
}

// The flags as the engine's options; throws idbench::Error naming the flag that is wrong.
generate::GenerateOptions to_options(const GenerateArgs& args) {
  generate::GenerateOptions o;
  o.count = parse_whole("--count", args.count, generate::kMaxCount);
  o.generator.layout = Layout::parse(args.layout);
  o.generator.policy = Policy::parse(args.policy);
  o.generator.node = parse_whole("--node", args.node, std::numeric_limits<std::uint64_t>::max());
  if (args.variant.empty() == args.exec.command.empty()) {
    throw Error("give either --variant or --exec");
  }
  o.variant = args.variant;
  if (!args.exec.command.empty()) o.exec = external::to_exec_spec(args.exec, args.layout);
  o.threads = args.threads;
  o.out = args.out;
  o.out_dir = args.out_dir;
  o.format = args.format == "binary" ? FileFormat::binary : FileFormat::text;
  return o;
}

void run_generate(const GenerateArgs& args) {
  const generate::GenerateResult r = generate::run_generate(to_options(args));
  report(args, r);
  if (!r.program_error.empty()) {
    fmt::print(stderr, "idbench: {}\n", r.program_error);
    throw CLI::RuntimeError(kExitBadInput);
  }
  if (!r.refusal.empty()) {
    fmt::print(stderr, "idbench: {}\n", r.refusal);
    throw CLI::RuntimeError(kExitRefused);
  }
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "Issue IDs from a variant (or an --exec program) to a file or stdout");
  std::vector<std::string> names;
  for (const auto& v : variants()) names.emplace_back(v.name);
  auto* variant = cmd->add_option("--variant", args->variant, "generator variant (idbench list)")
                      ->check(CLI::IsMember(names));
  external::add_exec_options(cmd, args->exec)->excludes(variant);
  cmd->add_option("--layout", args->layout, "layout preset or spec (64-bit variants)")
      ->capture_default_str();
  cmd->add_option("--policy", args->policy, "clock-regression policy NAME[:BOUND_MS]")
      ->capture_default_str();
  cmd->add_option("--node", args->node, "node id (thread-local: first node id)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "threads sharing one generator (--exec: thread t runs its own instance, node "
                  "id --node + t)")
      ->capture_default_str()
      ->check(plumbing::WholeNumber(1, 1024));
  cmd->add_option("--count", args->count, "how many IDs in total (0..2^40)")->required();
  auto* out = cmd->add_option(
      "--out", args->out,
      "one file for all threads (default stdout); devices, FIFOs and /dev/stdout are written "
      "through, a symlink's target is written, a regular file is replaced only when complete; "
      "when an --exec program fails (exit 2) it is kept, holding the IDs gathered before");
  cmd->add_option("--out-dir", args->out_dir,
                  "one file per thread in this directory, all committed or none")
      ->check(CLI::ExistingDirectory)
      ->excludes(out);
  cmd->add_option("--format", args->format, "text: one ID a line; binary: LE u64 / 16-byte UUID")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "binary"}));
  cmd->callback([args, cmd] {
    std::vector<external::NotForExec> not_for_exec = {
        {"--policy", "the program keeps its own clock policy"}};
    for (external::NotForExec& o : external::layout_for_exec(args->exec))
      not_for_exec.push_back(std::move(o));
    external::refuse_for_exec(*cmd, not_for_exec);
    run_generate(*args);
  });
}

}  // namespace idbench::cli
