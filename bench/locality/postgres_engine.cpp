// postgres_engine.cpp — PostgreSQL in a private cluster (plumbing/postgres_cluster.hpp), tuned
// for bulk loads (no fsync, no autovacuum): the pages its primary key's B-tree fills.
// PostgreSQL has no clustered index: the figures are those of the primary key's B-tree.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/locality/engines.hpp"
#include "plumbing/postgres_cluster.hpp"

namespace idbench::locality {

namespace {

class PostgresEngine final : public Engine {
 public:
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
  // Throws EngineUnavailable when PostgreSQL is not installed.
  static plumbing::PostgresCluster start_cluster() {
    try {
      return plumbing::PostgresCluster(
          "idbench-postgres",
          {.settings = {"fsync=off", "synchronous_commit=off", "full_page_writes=off",
                        "shared_buffers=256MB", "autovacuum=off"},
           .env = {},
           .launcher = {},
           .standby_of = {}});
    } catch (const plumbing::PostgresMissing& e) {
      throw EngineUnavailable(e.what());
    }
  }

 public:
  PostgresEngine() : pg_(start_cluster()), db_(pg_.db()) {
    version_ = db_.query("SHOW server_version");
    db_.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
  }

 private:
  plumbing::PostgresCluster pg_;
  plumbing::DbServer& db_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Engine> make_postgres_engine() { return std::make_unique<PostgresEngine>(); }

}  // namespace idbench::locality
