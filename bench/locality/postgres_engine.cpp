// PostgreSQL, in a private cluster: initdb into a temp directory, postgres listening only on
// a unix socket there, stopped when the engine is destroyed. PostgreSQL refuses to run as
// root, so when idbench is root the cluster runs as `nobody` (which owns the directory).
// PostgreSQL has no clustered index: the figures are those of the primary key's B-tree.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/locality/engines.hpp"
#include "bench/locality/process.hpp"

namespace idbench::locality {

namespace {

constexpr const char* kMissing =
    "PostgreSQL is not installed: the postgres engine needs the Debian packages postgresql "
    "and postgresql-contrib (apt-get install postgresql postgresql-contrib; ./run.sh installs "
    "them)";

// The newest /usr/lib/postgresql/<version>/bin, where Debian keeps initdb and postgres.
std::string postgres_bin_dir() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin" / "initdb")) dirs.push_back((e.path() / "bin").string());
  }
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(fs::path(a).parent_path().filename().string()) <
           std::stoi(fs::path(b).parent_path().filename().string());
  });
  return dirs.empty() ? "" : dirs.back();
}

class PostgresEngine final : public Engine {
 public:
  PostgresEngine() : dir_("idbench-postgres-") {
    const std::string bin = postgres_bin_dir();
    psql_ = find_program("psql", {bin});
    if (bin.empty() || psql_.empty()) throw EngineUnavailable(kMissing);
    as_ = unprivileged_user_if_root();
    if (as_) dir_.give_to(*as_);
    const std::string data = dir_.path() + "/data";
    const auto init = run_command({bin + "/initdb", "-D", data, "-U", "idbench", "-A", "trust",
                                   "--no-sync", "-E", "UTF8", "--locale=C"},
                                  dir_.path(), "", 180, as_);
    if (init.exit_code != 0) throw Error(fmt::format("initdb failed:\n{}{}", init.out, init.err));
    log_ = dir_.path() + "/postgres.log";
    server_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{bin + "/postgres", "-D", data, "-k", dir_.path(), "-c",
                                 "listen_addresses=", "-c", "fsync=off", "-c",
                                 "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
                                 "shared_buffers=256MB", "-c", "autovacuum=off"},
        log_, as_);
    wait_ready();
    version_ = query("SHOW server_version");
    query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
  }

  ~PostgresEngine() override {
    if (server_) server_->stop();
  }

  std::string name() const override { return "postgres"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    const auto start = std::chrono::steady_clock::now();
    const bool binary = table.key_type == KeyType::binary16;
    const bool shift = !binary && sql::needs_signed_shift(stream);
    const std::string sql_path = dir_.path() + "/run.sql";
    {
      std::ofstream sql(sql_path);
      sql << "DROP TABLE IF EXISTS t;\n";
      sql << fmt::format("CREATE TABLE t (id {} PRIMARY KEY{});\n", binary ? "uuid" : "bigint",
                         table.payload_bytes > 0 ? ", payload bytea NOT NULL" : "");
      const std::string payload =
          table.payload_bytes > 0
              ? fmt::format(", decode(repeat('ab', {}), 'hex')", table.payload_bytes)
              : "";
      constexpr std::size_t kBatch = 2000;
      for (std::size_t i = 0; i < stream.keys.size(); i += kBatch) {
        sql << "INSERT INTO t VALUES ";
        for (std::size_t j = i; j < std::min(stream.keys.size(), i + kBatch); ++j) {
          if (j > i) sql << ',';
          if (binary) {
            sql << "('" << sql::hex16(stream.keys[j]) << '\'' << payload << ')';
          } else {
            sql << '(' << sql::signed_key(stream.keys[j].lo, shift) << payload << ')';
          }
        }
        sql << " ON CONFLICT DO NOTHING;\n";
      }
      sql << "SELECT 'RESULT', leaf_pages, internal_pages, avg_leaf_density, tree_level,"
             " (SELECT count(*) FROM t) FROM pgstatindex('t_pkey');\n";
      sql << "DROP TABLE t;\n";
    }
    const auto r = psql(sql_path);
    Metrics m;
    m.engine = "postgres";
    m.engine_version = version_;
    m.key_type = table.key_type;
    std::istringstream out(r.out);
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("RESULT\t", 0) != 0) continue;
      std::istringstream fields(line.substr(7));
      std::uint64_t leaf = 0, internal = 0, rows = 0;
      double density = 0;
      int level = 0;
      fields >> leaf >> internal >> density >> level >> rows;
      m.rows = rows;
      m.leaf_pages = leaf;
      m.avg_leaf_fill = density / 100.0;
      m.height = level + 1;
      // With no deletes, every split adds one page and every root split one more (the new
      // root): pages beyond the first, less the levels added.
      const double splits = static_cast<double>(leaf + internal) - 1.0 - level;
      m.splits_per_1k = rows ? 1000.0 * splits / static_cast<double>(rows) : 0;
    }
    if (!m.leaf_pages) throw Error(fmt::format("postgres run gave no result:\n{}{}", r.out, r.err));
    std::remove(sql_path.c_str());
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.note = "pgstatindex() on the primary key index; splits = pages - 1 - tree_level";
    return m;
  }

 private:
  CommandResult psql(const std::string& sql_file) {
    auto r = run_command({psql_, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h",
                          dir_.path(), "-U", "idbench", "-d", "postgres", "-f", sql_file},
                         dir_.path(), "", 1800, as_);
    if (r.exit_code != 0) throw Error(fmt::format("psql failed:\n{}", r.err));
    return r;
  }

  std::string query(const std::string& q) {
    const std::string path = dir_.path() + "/q.sql";
    std::ofstream(path) << q << ";\n";
    auto r = psql(path);
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }

  void wait_ready() {
    const std::string path = dir_.path() + "/ping.sql";
    std::ofstream(path) << "SELECT 1;\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!server_->running()) {
        throw Error(fmt::format("postgres exited during start-up:\n{}", read_file(log_)));
      }
      auto r = run_command(
          {psql_, "-X", "-q", "-h", dir_.path(), "-U", "idbench", "-d", "postgres", "-f", path},
          dir_.path(), "", 10, as_);
      if (r.exit_code == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw Error(fmt::format("postgres did not start within 90 s:\n{}", read_file(log_)));
  }

  TempDir dir_;
  std::string psql_;
  std::string log_;
  std::string version_;
  std::optional<RunAs> as_;
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace

std::unique_ptr<Engine> make_postgres_engine() { return std::make_unique<PostgresEngine>(); }

}  // namespace idbench::locality
