#include "bench/locality/locality_command.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/locality/engines.hpp"
#include "bench/locality/key_stream.hpp"
#include "bench/locality/validate.hpp"
#include "generators/errors.hpp"

#ifndef IDBENCH_BUILD_TYPE
#define IDBENCH_BUILD_TYPE "unknown"
#endif

namespace idbench::locality {

namespace {

struct Flags {
  StreamSpec stream;
  std::string synthetic;
  std::string arrival = "round-robin";
  std::string key_type;  // empty: from the stream's width
  int payload_bytes = 0;
  std::string engine = "model";
  std::optional<std::uint64_t> pool_pages;
  double pool_percent = 10;
  bool json = false;
  bool validate = false;
  bool rows_given = false;
  std::string dump_keys;
};

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// The context block every idbench JSON result carries, so a report never guesses.
nlohmann::json context() {
  utsname u{};
  uname(&u);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const char* commit = std::getenv("IDBENCH_COMMIT");
  return {{"host", u.nodename},
          {"kernel", u.release},
          {"cpu", cpu_model()},
          {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"build_type", IDBENCH_BUILD_TYPE},
          {"commit", commit ? commit : "unknown"},
          {"date", date},
          {"clock", "manual (simulated ms ticks)"}};
}

nlohmann::json to_json(const Metrics& m) {
  return {{"engine", m.engine},
          {"engine_version", m.engine_version},
          {"rows", m.rows},
          {"key_type", to_string(m.key_type)},
          {"leaf_pages", opt(m.leaf_pages)},
          {"avg_leaf_fill", opt(m.avg_leaf_fill)},
          {"splits_per_1k", opt(m.splits_per_1k)},
          {"height", opt(m.height)},
          {"distinct_leaves_per_1k", opt(m.distinct_leaves_per_1k)},
          {"pool_miss_rate", opt(m.pool_miss_rate)},
          {"pool_pages", opt(m.pool_pages)},
          {"inserts_per_s", opt(m.inserts_per_s)},
          {"seconds", m.seconds},
          {"note", m.note}};
}

void print_metrics(const Metrics& m, const KeyStream& s) {
  auto f = [](const auto& v, const char* fmtstr) {
    return v ? fmt::format(fmt::runtime(fmtstr), *v) : std::string("n/a");
  };
  fmt::print("stream                 {}\n", s.description);
  fmt::print("engine                 {} {}\n", m.engine, m.engine_version);
  fmt::print("rows                   {} ({})\n", m.rows, to_string(m.key_type));
  fmt::print("leaf_pages             {}\n", f(m.leaf_pages, "{}"));
  fmt::print("avg_leaf_fill          {}\n",
             m.avg_leaf_fill ? fmt::format("{:.1f} %", 100 * *m.avg_leaf_fill) : "n/a");
  fmt::print("splits_per_1k          {}\n", f(m.splits_per_1k, "{:.2f}"));
  fmt::print("height                 {}\n", f(m.height, "{}"));
  fmt::print("distinct_leaves_per_1k {}\n", f(m.distinct_leaves_per_1k, "{:.1f}"));
  fmt::print("pool_miss_rate         {}\n",
             m.pool_miss_rate
                 ? fmt::format("{:.3f} (LRU of {} leaf pages)", *m.pool_miss_rate, *m.pool_pages)
                 : "n/a");
  if (m.inserts_per_s)
    fmt::print("model speed            {:.2f} M inserts/s\n", *m.inserts_per_s / 1e6);
}

void run_one(const Flags& f) {
  StreamSpec spec = f.stream;
  if (!f.synthetic.empty()) {
    if (f.synthetic == "sequential")
      spec.synthetic = Synthetic::sequential;
    else if (f.synthetic == "random")
      spec.synthetic = Synthetic::random;
    else
      throw Error("--synthetic must be sequential or random");
  }
  spec.arrival = f.arrival == "random" ? Arrival::random : Arrival::round_robin;
  const KeyStream stream = build_stream(spec);
  if (!f.dump_keys.empty()) {
    // The stream in --keys format, so the same keys can be replayed into another engine.
    std::ofstream out(f.dump_keys);
    for (const Id& id : stream.keys) out << to_text(id, stream.width) << '\n';
    if (!out) throw Error(fmt::format("cannot write {}", f.dump_keys));
  }
  TableSpec table;
  table.key_type = f.key_type.empty()         ? default_key_type(stream.width)
                   : f.key_type == "binary16" ? KeyType::binary16
                                              : KeyType::bigint;
  if (table.key_type == KeyType::bigint && stream.width == IdWidth::bits128) {
    throw Error("128-bit IDs do not fit a bigint key: use --key-type binary16");
  }
  table.payload_bytes = f.payload_bytes;
  PoolSpec pool{f.pool_pages, f.pool_percent};
  std::unique_ptr<Engine> engine;
  try {
    engine = make_engine(f.engine, pool);
  } catch (const EngineUnavailable& e) {
    fmt::print(stderr, "idbench locality: {}\n", e.what());
    throw CLI::RuntimeError(kExitEngineMissing);
  }
  const Metrics m = engine->run(stream, table);
  engine.reset();  // stop a server before printing: nothing is left running on any exit path
  if (f.json) {
    nlohmann::json j = to_json(m);
    j["stream"] = {
        {"description", stream.description},
        {"variant", spec.variant.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.variant)},
        {"synthetic", to_string(spec.synthetic)},
        {"keys_file", spec.keys_file},
        {"layout", spec.layout},
        {"rate_per_ms", spec.rate},
        {"achieved_rate_per_ms", stream.achieved_rate},
        {"writers", spec.writers},
        {"arrival", to_string(spec.arrival)},
        {"seed", spec.seed}};
    j["payload_bytes"] = f.payload_bytes;
    j["context"] = context();
    std::cout << j.dump(2) << std::endl;
  } else {
    print_metrics(m, stream);
  }
}

void run_validate(const Flags& f) {
  ValidationOptions opts;
  if (f.rows_given) opts.rows = f.stream.rows;
  opts.progress = &std::cerr;
  const ValidationReport report = run_validation(opts);
  if (f.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : report.rows) {
      rows.push_back({{"stream", r.stream.label},
                      {"key_type", to_string(r.key_type)},
                      {"tolerance", r.tolerance},
                      {"error", opt(r.error())},
                      {"pass", r.pass()},
                      {"model", to_json(r.model)},
                      {"innodb", r.innodb ? to_json(*r.innodb) : nlohmann::json(nullptr)},
                      {"sqlite", r.sqlite ? to_json(*r.sqlite) : nlohmann::json(nullptr)},
                      {"postgres", r.postgres ? to_json(*r.postgres) : nlohmann::json(nullptr)}});
    }
    nlohmann::json j = {{"validation", rows},
                        {"innodb_ran", report.innodb_ran},
                        {"pass", report.innodb_ran && report.pass()},
                        {"unavailable", report.unavailable},
                        {"context", context()}};
    std::cout << j.dump(2) << std::endl;
  } else {
    print_validation(report, std::cout);
  }
  if (!report.innodb_ran) throw CLI::RuntimeError(kExitEngineMissing);
  if (!report.pass()) throw CLI::RuntimeError(kExitDisagrees);
}

}  // namespace

void add_locality_command(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "locality",
      "Where a stream of IDs lands in a clustered index: leaf fill, splits, pages touched and "
      "buffer-pool misses, from an InnoDB model or a real engine");
  auto* variant = cmd->add_option("--variant", flags->stream.variant, "Registry variant to drive");
  auto* keys = cmd->add_option("--keys", flags->stream.keys_file,
                               "File of keys in arrival order: decimal, or UUID / 32 hex digits");
  auto* synthetic = cmd->add_option("--synthetic", flags->synthetic,
                                    "A stream no generator makes: sequential or random bigint")
                        ->check(CLI::IsMember({"sequential", "random"}));
  variant->excludes(keys, synthetic);
  keys->excludes(synthetic);
  cmd->add_option("--layout", flags->stream.layout, "Layout for Snowflake-family variants")
      ->capture_default_str();
  cmd->add_option("--key-type", flags->key_type, "Primary key column: bigint or binary16")
      ->check(CLI::IsMember({"bigint", "binary16"}));
  cmd->add_option("--payload-bytes", flags->payload_bytes, "Fixed-length column beside the key")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  auto* rows = cmd->add_option("--rows", flags->stream.rows, "Rows to insert (validation: 300000)")
                   ->check(CLI::PositiveNumber)
                   ->capture_default_str();
  cmd->add_option("--rate", flags->stream.rate, "IDs per simulated ms, all writers together")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--writers", flags->stream.writers, "Writers (node ids 0..W-1)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--arrival", flags->arrival, "Order within a tick: round-robin or random")
      ->check(CLI::IsMember({"round-robin", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", flags->stream.seed, "Seed of random arrival and synthetic random keys")
      ->capture_default_str();
  cmd->add_option("--engine", flags->engine, "model, sqlite, mariadb or postgres")
      ->check(CLI::IsMember({"model", "sqlite", "mariadb", "postgres"}))
      ->capture_default_str();
  auto* pool_pages =
      cmd->add_option("--pool-pages", flags->pool_pages, "LRU pool size in leaf pages")
          ->check(CLI::PositiveNumber);
  auto* pool_percent = cmd->add_option("--pool-percent", flags->pool_percent,
                                       "LRU pool size as % of the final leaf pages")
                           ->check(CLI::Range(0.001, 100.0))
                           ->capture_default_str();
  pool_pages->excludes(pool_percent);
  cmd->add_flag("--json", flags->json, "Print one JSON object");
  cmd->add_option("--dump-keys", flags->dump_keys,
                  "Also write the stream's keys to FILE (the --keys format), to replay them");
  auto* validate = cmd->add_flag("--validate", flags->validate,
                                 "Model vs real InnoDB (and SQLite, PostgreSQL) on the issue's "
                                 "validation streams");
  validate->excludes(variant, keys, synthetic);
  cmd->callback([flags, rows, validate]() {
    flags->rows_given = rows->count() > 0;
    if (validate->count() > 0) {
      run_validate(*flags);
      return;
    }
    run_one(*flags);
  });
}

}  // namespace idbench::locality
