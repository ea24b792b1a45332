// idbench locality — where a stream of IDs lands in a clustered index: flags over the
// bench/locality library (single_run.hpp, validate.hpp, matrix.hpp).
//
//   idbench locality (--variant V | --exec 'CMD ARGS' [--id-time T] [--id-bits B] [--ordering O]
//                     [--batch N] [--timeout-ms N] | --keys FILE | --synthetic sequential|random)
//       [--layout L] [--key-type bigint|binary16] [--payload-bytes B] [--secondary] [--rows N]
//       [--rate R]
//       [--writers W] [--arrival round-robin|random|poisson] [--seed S] [--node-major]
//       [--engine model|sqlite|mariadb|postgres] [--pool-pages N | --pool-percent P]
//       [--dump-keys FILE] [--json]
//   idbench locality --validate [--rows N] [--payload-bytes B] [--json]   (default: every
//       stream at 0, 100, 250 and 1000 B payloads; B: that row size only)
//   idbench locality --matrix --out FILE [--quick] [--full] [--rows N] [--validate-rows N]
//       [--no-validate] [--payload-bytes B]   (B: your row size, which the decision table
//       describes; default 250)
//
// Exit status: 0 done (validation: the model agrees with InnoDB; matrix: written);
// 1 validation disagrees; 2 bad input; 3 a generator refused; 4 an engine's server is not
// installed (the message names the Debian package).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <optional>

#include "bench/locality/matrix.hpp"
#include "bench/locality/run_json.hpp"
#include "bench/locality/run_text.hpp"
#include "bench/locality/single_run.hpp"
#include "bench/locality/validate.hpp"
#include "cli/commands.hpp"
#include "cli/finite_range.hpp"
#include "external/exec_options.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/enum_names.hpp"
#include "plumbing/exit_codes.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::cli {
namespace {

using namespace idbench::locality;

struct LocalityArgs {
  RunSpec run;
  std::string synthetic;
  std::string arrival = "round-robin";
  std::string key_type;  // empty: from the stream's width
  std::optional<std::uint64_t> pool_pages;
  double pool_percent = 10;
  bool json = false;
  bool validate = false;
  bool matrix = false;
  bool quick = false;
  bool no_validate = false;
  bool full = false;
  std::optional<std::uint64_t> rows, validate_rows;
  std::optional<int> payload_bytes;  // a run's row; the matrix: the decision table's row
  std::string out;
  external::ExecArgs exec;
};

// The value a flag's word names. The flags' own checks admit only the tables' words, so this
// throws only if a caller other than the command line fills LocalityArgs wrongly.
template <class E, std::size_t N>
E flag_value(const std::array<plumbing::Named<E>, N>& table, const std::string& word,
        const char* flag) {
  const std::optional<E> value = plumbing::value_in(table, word);
  if (!value) {
    throw Error(fmt::format("{} '{}' is not one of {}", flag, word,
                            fmt::join(plumbing::names_in(table), ", ")));
  }
  return *value;
}

// --synthetic's words: every stream but `none`, which means "a variant's stream, not synthetic".
std::vector<std::string> synthetic_words() {
  std::vector<std::string> words;
  for (const auto& n : kSyntheticNames) {
    if (n.value != Synthetic::none) words.emplace_back(n.name);
  }
  return words;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << std::endl; }

void run_one(LocalityArgs& a) {
  RunSpec& spec = a.run;
  if (a.rows) spec.stream.rows = *a.rows;
  spec.payload_bytes = a.payload_bytes.value_or(0);
  if (!a.synthetic.empty()) {
    spec.stream.synthetic = flag_value(kSyntheticNames, a.synthetic, "--synthetic");
  }
  spec.stream.arrival = flag_value(kArrivalNames, a.arrival, "--arrival");
  if (!a.key_type.empty()) spec.key_type = flag_value(kKeyTypeNames, a.key_type, "--key-type");
  spec.pool = PoolSpec{a.pool_pages, a.pool_percent};
  // A signal kills the programs --exec started and unwinds with Interrupted (exit 130).
  std::optional<plumbing::InterruptGuard> guard;
  if (!a.exec.command.empty()) {
    spec.stream.described =
        external::exec_variant(external::to_exec_spec(a.exec, spec.stream.layout));
    spec.stream.variant = fmt::format("'{}'", a.exec.command);
    guard.emplace();
  }
  RunResult result;
  try {
    result = run_locality(spec);
  } catch (const EngineUnavailable& e) {
    fmt::print(stderr, "idbench locality: {}\n", e.what());
    throw CLI::RuntimeError(kExitMissingTool);
  }
  if (a.json) {
    print_json(to_json(spec, result));
  } else {
    print_run(result, std::cout);
  }
}

void run_validate(const LocalityArgs& a) {
  ValidationOptions opts;
  if (a.rows) opts.rows = *a.rows;
  check_rows(opts.rows, "--rows");
  if (a.payload_bytes) opts.payloads = {*a.payload_bytes};  // your row size alone
  opts.progress = &std::cerr;
  const ValidationReport report = run_validation(opts);
  if (a.json) {
    print_json(to_json(report));
  } else {
    print_validation(report, std::cout);
  }
  if (!report.innodb_ran) throw CLI::RuntimeError(kExitMissingTool);
  if (!report.pass()) throw CLI::RuntimeError(kExitFound);
}

void run_matrix_command(const LocalityArgs& a) {
  MatrixOptions opts;
  opts.rows = a.rows.value_or(a.quick ? kQuickRows : opts.rows);
  opts.validate_rows = a.validate_rows.value_or(a.quick ? kQuickValidateRows : opts.validate_rows);
  opts.validate = !a.no_validate;
  if (a.full) opts.validate_payloads = kValidationPayloads;
  if (a.payload_bytes) opts.decision_payload_bytes = *a.payload_bytes;
  opts.out = a.out;
  opts.progress = &std::cerr;
  const int status = run_matrix(opts);
  if (status != kExitOk) throw CLI::RuntimeError(status);
}

void add_stream_options(CLI::App* cmd, LocalityArgs& a) {
  auto* variant = cmd->add_option("--variant", a.run.stream.variant, "Registry variant to drive");
  auto* keys = cmd->add_option("--keys", a.run.stream.keys_file,
                               "File of keys in arrival order: decimal, or UUID / 32 hex digits");
  auto* synthetic = cmd->add_option("--synthetic", a.synthetic,
                                    "A stream no generator makes: sequential or random bigint")
                        ->check(CLI::IsMember(synthetic_words()));
  auto* exec = external::add_exec_options(cmd, a.exec);
  variant->excludes(keys, synthetic, exec);
  keys->excludes(synthetic, exec);
  synthetic->excludes(exec);
  cmd->add_option("--layout", a.run.stream.layout, "Layout for Snowflake-family variants")
      ->capture_default_str();
  cmd->add_flag("--node-major", a.run.stream.node_major,
                "Move the node field above the timestamp (layout variants): each writer appends "
                "at its own insert point, global time order is lost");
  cmd->add_option("--rows", a.rows, "Rows to insert (default 1000000; validation: 300000)")
      ->check(plumbing::WholeNumber(1));
  cmd->add_option("--rate", a.run.stream.rate,
                  "IDs per simulated ms, all writers together; a fraction spreads them out "
                  "(0.01 = 10 IDs/s, so 100000 rows span 2.8 h of generator time), 1e-06 … 1e+07")
      ->capture_default_str();
  cmd->add_option("--writers", a.run.stream.writers, "Writers (node ids 0..W-1)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--arrival", a.arrival,
                  "Order within a tick: round-robin or random; or poisson: seeded exponential "
                  "gaps between IDs (mean 1/rate), writers in turn")
      ->check(CLI::IsMember(plumbing::names_in(kArrivalNames)))
      ->capture_default_str();
  cmd->add_option("--seed", a.run.stream.seed,
                  "Seed of random and poisson arrival and synthetic random keys")
      ->capture_default_str();
  cmd->add_option("--dump-keys", a.run.dump_keys,
                  "Also write the stream's keys to FILE (the --keys format), to replay them");
}

void add_engine_options(CLI::App* cmd, LocalityArgs& a) {
  cmd->add_option("--key-type", a.key_type, "Primary key column: bigint or binary16")
      ->check(CLI::IsMember(plumbing::names_in(kKeyTypeNames)));
  cmd->add_option("--payload-bytes", a.payload_bytes,
                  "Fixed-length columns beside the key, in bytes: up to InnoDB's in-page limit "
                  "(8099 with a bigint key, 8091 with binary16); with --matrix, your row size, "
                  "which the decision table describes (default 250)");
  cmd->add_flag("--secondary", a.run.secondary,
                "Two secondary indexes: k_created (insert time, sequential) and k_owner (a "
                "random foreign key); model and mariadb only");
  cmd->add_option("--engine", a.run.engine, "model, sqlite, mariadb or postgres")
      ->check(CLI::IsMember({"model", "sqlite", "mariadb", "postgres"}))
      ->capture_default_str();
  auto* pool_pages = cmd->add_option("--pool-pages", a.pool_pages, "LRU pool size in leaf pages")
                         ->check(plumbing::WholeNumber(1));
  auto* pool_percent = cmd->add_option("--pool-percent", a.pool_percent,
                                       "LRU pool size as % of the final leaf pages")
                           ->check(FiniteRange(0.001, 100.0))
                           ->capture_default_str();
  pool_pages->excludes(pool_percent);
}

}  // namespace

void add_locality_command(CLI::App& app) {
  auto args = std::make_shared<LocalityArgs>();
  CLI::App* cmd = app.add_subcommand(
      "locality",
      "Where a stream of IDs lands in a clustered index: leaf fill, splits, pages touched and "
      "buffer-pool misses, from an InnoDB model or a real engine");
  add_stream_options(cmd, *args);
  add_engine_options(cmd, *args);
  cmd->add_flag("--json", args->json, "Print one JSON object");
  auto* validate = cmd->add_flag("--validate", args->validate,
                                 "Model vs real InnoDB (and SQLite, PostgreSQL) on the validation "
                                 "streams (sequential, random, UUIDv4, Snowflake)");
  auto* matrix = cmd->add_flag("--matrix", args->matrix,
                               "Run the default matrix (every variant × 1, 8 writers, baselines, "
                               "cross-check) and write --out (progress on stderr)");
  auto* out = cmd->add_option("--out", args->out, "matrix: the JSON file to write");
  auto* quick = cmd->add_flag("--quick", args->quick, "matrix: 100000 rows, cross-check 30000");
  auto* validate_rows = cmd->add_option("--validate-rows", args->validate_rows,
                                        "matrix: rows of the cross-check (default 300000)")
                            ->check(plumbing::WholeNumber(1));
  auto* no_validate =
      cmd->add_flag("--no-validate", args->no_validate, "matrix: skip the cross-check");
  auto* full = cmd->add_flag("--full", args->full,
                             "matrix: cross-check every validated row size (0, 100, 250, 1000 B; "
                             "default 0 and 250)");
  for (auto* only_matrix : {out, quick, validate_rows, no_validate, full}) {
    only_matrix->needs(matrix);
  }
  for (const char* stream : {"--variant", "--exec", "--keys", "--synthetic"}) {
    validate->excludes(stream);
    matrix->excludes(stream);
  }
  matrix->excludes(validate);
  cmd->callback([args, validate, matrix]() {
    if (matrix->count() > 0) return run_matrix_command(*args);
    if (validate->count() > 0) return run_validate(*args);
    run_one(*args);
  });
}

}  // namespace idbench::cli
