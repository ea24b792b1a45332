// postgres_engine.cpp — PostgreSQL in a private cluster (db_server.hpp): initdb, postgres
// listening only on a unix socket, as `nobody` when idbench is root (PostgreSQL refuses root).
// PostgreSQL has no clustered index: the figures are those of the primary key's B-tree.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/locality/engines.hpp"
#include "plumbing/db_server.hpp"

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
  PostgresEngine() : PostgresEngine(postgres_bin_dir()) {}

  std::string name() const override { return "postgres"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    if (table.secondary) {
      throw Error("secondary indexes are modelled for InnoDB: use --engine model or mariadb");
    }
    const auto start = std::chrono::steady_clock::now();
    const bool binary = table.key_type == KeyType::binary16;
    const bool shift = !binary && sql::needs_signed_shift(stream);
    const std::string sql_path = db_.dir() + "/run.sql";
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
    const auto r = db_.run_sql_file(sql_path);
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
  // PostgreSQL refuses to run as root: when idbench is root the cluster runs as `nobody`.
  explicit PostgresEngine(const std::string& bin)
      : db_("idbench-postgres", plumbing::unprivileged_user_if_root()) {
    const std::string psql = plumbing::find_program("psql", {bin});
    if (bin.empty() || psql.empty()) throw EngineUnavailable(kMissing);
    const std::string data = db_.dir() + "/data";
    db_.init({bin + "/initdb", "-D", data, "-U", "idbench", "-A", "trust", "--no-sync", "-E",
              "UTF8", "--locale=C"},
             "initdb");
    // Dynamic shared memory as files in the data directory (pg_dynshmem), not /dev/shm: a
    // server killed with its run never unlinks its /dev/shm/PostgreSQL.N segments, while the
    // data directory goes with the run's temp dir or the next run's sweep.
    db_.start({bin + "/postgres", "-D", data, "-k", db_.dir(), "-c", "listen_addresses=", "-c",
               "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
               "shared_buffers=256MB", "-c", "autovacuum=off", "-c",
               "dynamic_shared_memory_type=mmap"},
              {psql, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", db_.dir(),
               "-U", "idbench", "-d", "postgres"},
              "postgres");
    version_ = db_.query("SHOW server_version");
    db_.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
  }

  plumbing::DbServer db_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Engine> make_postgres_engine() { return std::make_unique<PostgresEngine>(); }

}  // namespace idbench::locality
