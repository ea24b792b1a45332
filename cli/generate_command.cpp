// idbench generate — issue IDs from a variant, from T threads, to a file or stdout.
//
// Measuring does not format: each thread issues a chunk of IDs into memory, timed on the
// monotonic clock, then encodes and writes that chunk outside the timed part. So the IDs/s
// printed is the generator's (summed over the slowest thread's issuing time), not the disk's,
// and memory stays bounded (one chunk per thread) whatever --count is.
//
// One output for T threads holds thread 0's IDs, then thread 1's, and so on (each thread's
// IDs in the order it got them): thread 0 writes the output directly, the others spool to
// anonymous temp files (O_TMPFILE: nothing to leave behind) appended at the end.
//
// `--exec` puts an external program in the variant's place (external/program.hpp): thread t
// runs its own instance with node id --node + t, so thread t's IDs (thread-t.txt, or the t-th
// block of one output) always come from that node id. When it fails (exits early, hangs,
// prints a bad line), the IDs gathered before are still written and committed — whole lines,
// a valid file — and the failure is one line and exit 2.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <exception>
#include <latch>
#include <memory>
#include <optional>
#include <thread>

#include "check/id_file.hpp"
#include "cli/commands.hpp"
#include "external/exec_options.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::cli {
namespace {

// 2^40 IDs is 8 TiB in binary: beyond any disk this harness runs on, so a larger count is a
// mistake (a negative number wrapped, an exponent) rather than a plan.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 40;
// IDs issued per timed chunk: 16 Ki IDs is 256 KiB per thread, and ~100 µs between clock reads.
constexpr std::uint64_t kChunk = std::uint64_t{1} << 14;

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

struct ThreadResult {
  std::uint64_t issued = 0;
  double issue_seconds = 0;   // monotonic time spent in gen->next(), excluding writing
  std::string refusal;        // a generator's refusal (ClockError), if it stopped early
  std::string program_error;  // an --exec program's failure (ProgramError), if it stopped early
  std::exception_ptr error;   // anything else: rethrown on the CLI's thread after the join
};

// An unnamed file under the temp root: gone when closed, even after SIGKILL.
class Spool {
 public:
  Spool() {
    const std::string root = plumbing::temp_root();
    fd_ = ::open(root.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) fail(root);
  }
  ~Spool() { ::close(fd_); }
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(plumbing::temp_root());
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // Appends everything spooled to `out`.
  void drain_into(plumbing::OutputFile& out) {
    std::string buf(std::size_t{1} << 20, '\0');
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf.data(), buf.size(), at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(plumbing::temp_root());
      if (n == 0) return;
      out.write(std::string_view(buf.data(), static_cast<std::size_t>(n)));
      at += n;
    }
  }

 private:
  [[noreturn]] static void fail(const std::string& where) {
    throw Error(fmt::format("cannot spool IDs under {}: {}", where, std::strerror(errno)));
  }
  int fd_ = -1;
};

// Where the threads write: one output (thread 0 direct, the others spooled), or one output
// per thread. No locks: every thread writes only its own file.
struct Sink {
  FileFormat format = FileFormat::text;
  IdWidth width = IdWidth::bits64;
  plumbing::OutputFile* shared = nullptr;
  std::vector<std::unique_ptr<Spool>> spools;  // [t] for t >= 1 when `shared`
  std::vector<plumbing::OutputFile>* per_thread = nullptr;
  // Set when a thread failed (not refused): the others stop early. Relaxed: it is only a hint
  // to stop; the results are published to the CLI thread by join().
  std::atomic<bool> stop{false};

  void write(unsigned thread, std::span<const Id> ids, std::string& bytes) {
    bytes.clear();
    encode_ids(bytes, ids, format, width);
    if (per_thread != nullptr) {
      (*per_thread)[thread].write(bytes);
    } else if (thread == 0) {
      shared->write(bytes);
    } else {
      spools[thread]->write(bytes);
    }
  }
};

void run_worker(unsigned thread, std::uint64_t share, Generator& gen, Sink& sink, std::latch& start,
                ThreadResult& r) {
  std::vector<Id> chunk;
  chunk.reserve(static_cast<std::size_t>(std::min(share, kChunk)));
  std::string bytes;
  start.arrive_and_wait();
  try {
    while (r.issued < share && !sink.stop.load(std::memory_order_relaxed)) {
      const std::uint64_t n = std::min(kChunk, share - r.issued);
      chunk.clear();
      const auto began = std::chrono::steady_clock::now();
      try {
        for (std::uint64_t i = 0; i < n; ++i) chunk.push_back(gen.next());
      } catch (const ClockError& e) {
        r.refusal = e.what();
      } catch (const external::ProgramError& e) {
        r.program_error = e.what();
        sink.stop.store(true, std::memory_order_relaxed);
      }
      r.issue_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      r.issued += chunk.size();
      sink.write(thread, chunk, bytes);  // what was issued is written, even after a refusal
      if (!r.refusal.empty() || !r.program_error.empty()) break;
    }
  } catch (...) {
    r.error = std::current_exception();
    sink.stop.store(true, std::memory_order_relaxed);
  }
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<std::size_t>(slash, 1));
}

std::string label(const GenerateArgs& args) {
  return args.exec.command.empty() ? args.variant : fmt::format("'{}'", args.exec.command);
}

// The generator of each thread: the variant's one, shared; or per thread t a program instance
// of its own with node id --node + t, so that thread-t.txt always holds that node id's IDs.
std::vector<std::unique_ptr<Generator>> make_from_args(const GenerateArgs& args,
                                                       GeneratorOptions opts) {
  if (args.variant.empty() == args.exec.command.empty()) {
    throw Error("give either --variant or --exec");
  }
  std::vector<std::unique_ptr<Generator>> gens;
  if (!args.variant.empty()) {
    gens.push_back(make_generator(args.variant, opts));
    return gens;
  }
  const Variant program = external::exec_variant(external::to_exec_spec(args.exec, args.layout));
  const std::uint64_t first = opts.node;
  for (unsigned t = 0; t < args.threads; ++t) {
    opts.node = first + t;
    gens.push_back(program.make(opts));
  }
  return gens;
}

void report(const GenerateArgs& args, const std::vector<ThreadResult>& results, double wall) {
  std::uint64_t issued = 0;
  double slowest = 0;
  for (const auto& r : results) {
    issued += r.issued;
    slowest = std::max(slowest, r.issue_seconds);
  }
  if (issued > 0) {
    fmt::print(stderr, "{}: {} IDs from {} thread{} in {:.3f} s = {:.2f} M IDs/s\n", label(args),
               issued, args.threads, args.threads == 1 ? "" : "s", slowest,
               slowest > 0 ? issued / slowest / 1e6 : 0.0);
  }
  if (issued > 0 && (!args.out.empty() || !args.out_dir.empty())) {
    fmt::print(stderr, "issued and written in {:.3f} s\n", wall);
  }
}

void run_generate(const GenerateArgs& args) {
  const std::uint64_t count = parse_whole("--count", args.count, kMaxCount);
  GeneratorOptions opts;
  opts.layout = Layout::parse(args.layout);
  opts.policy = Policy::parse(args.policy);
  opts.node = parse_whole("--node", args.node, std::numeric_limits<std::uint64_t>::max());
  // A signal kills the programs --exec started and unwinds with Interrupted (exit 130).
  std::optional<plumbing::InterruptGuard> guard;
  if (!args.exec.command.empty()) guard.emplace();
  const auto gens = make_from_args(args, opts);

  Sink sink;
  sink.format = args.format == "binary" ? FileFormat::binary : FileFormat::text;
  sink.width = gens.front()->width();
  std::optional<plumbing::OutputFile> shared;
  std::vector<plumbing::OutputFile> files;
  const char* ext = sink.format == FileFormat::text ? "txt" : "bin";
  if (!args.out_dir.empty()) {
    plumbing::sweep_stale_temp_files(args.out_dir);
    for (unsigned t = 0; t < args.threads; ++t) {
      files.emplace_back(fmt::format("{}/thread-{}.{}", args.out_dir, t, ext));
    }
    sink.per_thread = &files;
  } else {
    if (!args.out.empty()) plumbing::sweep_stale_temp_files(dir_of(args.out));
    shared.emplace(args.out);
    sink.shared = &*shared;
    sink.spools.resize(args.threads);
    for (unsigned t = 1; t < args.threads; ++t) sink.spools[t] = std::make_unique<Spool>();
  }

  std::vector<ThreadResult> results(args.threads);
  std::latch start(args.threads + 1);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < args.threads; ++t) {
    const std::uint64_t share = count / args.threads + (t < count % args.threads);
    Generator& gen = *gens[gens.size() == 1 ? 0 : t];
    workers.emplace_back(run_worker, t, share, std::ref(gen), std::ref(sink), std::ref(start),
                         std::ref(results[t]));
  }
  const auto began = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  for (auto& w : workers) w.join();
  for (const auto& r : results) {
    if (r.error) std::rethrow_exception(r.error);  // outputs are abandoned, nothing replaced
  }
  if (shared) {
    for (unsigned t = 1; t < args.threads; ++t) sink.spools[t]->drain_into(*shared);
    shared->commit();
  } else {
    plumbing::commit_all(files);
  }
  report(args, results,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  for (const auto& r : results) {
    if (!r.program_error.empty()) {
      fmt::print(stderr, "idbench: {}\n", r.program_error);
      throw CLI::RuntimeError(kExitBadInput);
    }
  }
  for (const auto& r : results) {
    if (!r.refusal.empty()) {
      fmt::print(stderr, "idbench: {}\n", r.refusal);
      throw CLI::RuntimeError(kExitRefused);
    }
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
