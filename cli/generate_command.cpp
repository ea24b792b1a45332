// idbench generate — issue IDs from a variant, from T threads, to a file or stdout.
//
// Measuring does not format: threads first issue into memory (timed on the monotonic clock),
// then the IDs are written. So the IDs/s printed is the generator's, not the disk's.
#include <fmt/format.h>

#include <chrono>
#include <latch>
#include <thread>

#include "check/id_file.hpp"
#include "cli/commands.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"

namespace idbench::cli {
namespace {

struct GenerateArgs {
  std::string variant;
  std::string layout = "twitter";
  std::string policy = "refuse";
  std::uint64_t node = 0;
  unsigned threads = 1;
  std::uint64_t count = 0;
  std::string out;
  std::string out_dir;
  std::string format = "text";
};

struct ThreadResult {
  std::vector<Id> ids;
  std::string error;  // a generator's refusal, if it stopped early
};

void run_generate(const GenerateArgs& args) {
  GeneratorOptions opts;
  opts.layout = Layout::parse(args.layout);
  opts.policy = Policy::parse(args.policy);
  opts.node = args.node;
  auto gen = make_generator(args.variant, opts);
  const FileFormat format = args.format == "binary" ? FileFormat::binary : FileFormat::text;

  std::vector<ThreadResult> results(args.threads);
  std::latch start(args.threads + 1);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < args.threads; ++t) {
    const std::uint64_t share = args.count / args.threads + (t < args.count % args.threads);
    workers.emplace_back([&, t, share] {
      ThreadResult& r = results[t];
      r.ids.reserve(share);
      start.arrive_and_wait();
      try {
        for (std::uint64_t i = 0; i < share; ++i) r.ids.push_back(gen->next());
      } catch (const ClockError& e) {
        r.error = e.what();
      }
    });
  }
  const auto began = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  for (auto& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();

  std::uint64_t issued = 0;
  for (const auto& r : results) issued += r.ids.size();
  fmt::print(stderr, "{}: {} IDs from {} thread{} in {:.3f} s = {:.2f} M IDs/s\n", args.variant,
             issued, args.threads, args.threads == 1 ? "" : "s", seconds,
             seconds > 0 ? issued / seconds / 1e6 : 0.0);

  // Whatever was issued is written, even when a thread was refused: results are never lost.
  const auto write_started = std::chrono::steady_clock::now();
  if (!args.out_dir.empty()) {
    for (unsigned t = 0; t < args.threads; ++t) {
      IdFileWriter w(fmt::format("{}/thread-{}.{}", args.out_dir, t,
                                 format == FileFormat::text ? "txt" : "bin"),
                     format, gen->width());
      w.write(results[t].ids);
      w.commit();
    }
  } else {
    IdFileWriter w(args.out, format, gen->width());
    for (const auto& r : results) w.write(r.ids);
    w.commit();
  }
  if (!args.out.empty() || !args.out_dir.empty()) {
    fmt::print(
        stderr, "written in {:.3f} s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - write_started).count());
  }
  for (const auto& r : results) {
    if (!r.error.empty()) {
      fmt::print(stderr, "idbench: {}\n", r.error);
      throw CLI::RuntimeError(kExitRefused);
    }
  }
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = app.add_subcommand("generate", "Issue IDs from a variant to a file or stdout");
  std::vector<std::string> names;
  for (const auto& v : variants()) names.emplace_back(v.name);
  cmd->add_option("--variant", args->variant, "generator variant (idbench list)")
      ->required()
      ->check(CLI::IsMember(names));
  cmd->add_option("--layout", args->layout, "layout preset or spec (64-bit variants)")
      ->capture_default_str();
  cmd->add_option("--policy", args->policy, "clock-regression policy NAME[:BOUND_MS]")
      ->capture_default_str();
  cmd->add_option("--node", args->node, "node id (thread-local: first node id)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "threads sharing one generator")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--count", args->count, "how many IDs in total")->required();
  auto* out = cmd->add_option("--out", args->out, "one file for all threads (default stdout)");
  cmd->add_option("--out-dir", args->out_dir, "one file per thread in this directory")
      ->check(CLI::ExistingDirectory)
      ->excludes(out);
  cmd->add_option("--format", args->format, "text: one ID a line; binary: LE u64 / 16-byte UUID")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "binary"}));
  cmd->callback([args] { run_generate(*args); });
}

}  // namespace idbench::cli
