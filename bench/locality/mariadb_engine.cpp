// mariadb_engine.cpp — MariaDB (InnoDB) in a private mariadbd (db_server.hpp) on a unix socket
// with networking off. The ground truth the model is validated against.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "bench/locality/engines.hpp"
#include "plumbing/db_server.hpp"

namespace idbench::locality {

namespace {

constexpr const char* kMissing =
    "MariaDB is not installed: the mariadb engine needs the Debian packages mariadb-server and "
    "mariadb-client (apt-get install mariadb-server mariadb-client; ./run.sh installs them)";

class MariadbEngine final : public Engine {
 public:
  MariadbEngine() : db_("idbench-mariadb", std::nullopt) {
    const std::string server = plumbing::find_program("mariadbd");
    const std::string install = plumbing::find_program("mariadb-install-db");
    const std::string client = plumbing::find_program("mariadb");
    if (server.empty() || install.empty() || client.empty()) throw EngineUnavailable(kMissing);
    const std::string data = db_.dir() + "/data";
    const std::string socket = db_.dir() + "/mysqld.sock";
    const bool root = geteuid() == 0;
    // mariadbd refuses root unless told --user=root; it then stays root inside its own
    // private directory, which is all it touches.
    // A private --tmpdir (passed through to the bootstrap server too): a mariadbd starting
    // up removes stale #sql temp files from its tmpdir, which in a shared /tmp are another
    // instance's live temporary tables (seen with two tests bootstrapping at once).
    std::vector<std::string> install_argv = {install,
                                             "--no-defaults",
                                             "--datadir=" + data,
                                             "--tmpdir=" + db_.dir(),
                                             "--auth-root-authentication-method=normal",
                                             "--skip-test-db"};
    if (root) install_argv.push_back("--user=root");
    db_.init(install_argv, "mariadb-install-db");
    std::vector<std::string> argv = {
        server, "--no-defaults", "--datadir=" + data, "--tmpdir=" + db_.dir(),
        "--socket=" + socket, "--skip-networking", "--pid-file=" + db_.dir() + "/mysqld.pid",
        "--skip-grant-tables",
        // Durability is irrelevant to page layout; these make the run fast.
        "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
        "--innodb-buffer-pool-size=1G", "--innodb-stats-auto-recalc=OFF", "--skip-log-bin"};
    if (root) argv.push_back("--user=root");
    db_.start(argv,
              {client, "--no-defaults", "--socket=" + socket, "--user=root", "--batch",
               "--skip-column-names"},
              "mariadbd");
    version_ = db_.query("SELECT VERSION()");
    db_.query("SET GLOBAL innodb_monitor_enable = 'index_page_splits'");
  }

  std::string name() const override { return "mariadb"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    const auto start = std::chrono::steady_clock::now();
    const std::string sql_path = db_.dir() + "/run.sql";
    write_sql(stream, table, sql_path);
    const auto r = db_.run_sql_file(sql_path);
    std::istringstream out(r.out);
    Metrics m;
    m.engine = "mariadb";
    m.engine_version = version_;
    m.key_type = table.key_type;
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("RESULT\t", 0) != 0) continue;
      std::istringstream fields(line.substr(7));
      std::uint64_t leaf = 0, splits = 0, rows = 0;
      fields >> leaf >> splits >> rows;
      m.rows = rows;
      m.leaf_pages = leaf;
      ModelOptions opts;  // the same record arithmetic as the model, for a comparable fill
      opts.key_bytes = key_bytes(table.key_type);
      opts.payload_bytes = table.column_bytes();
      m.avg_leaf_fill = fill(rows, opts.leaf_record_bytes(), leaf);
      m.splits_per_1k = rows ? 1000.0 * static_cast<double>(splits) / static_cast<double>(rows) : 0;
      if (!table.secondary) continue;
      for (const char* name : secondary::kIndexNames) {
        std::uint64_t sec_leaf = 0;
        fields >> sec_leaf;
        ModelOptions sec{.key_bytes = 8 + opts.key_bytes, .clustered = false};
        m.secondary.push_back({name, sec_leaf, fill(rows, sec.leaf_record_bytes(), sec_leaf)});
      }
    }
    if (!m.leaf_pages) throw Error(fmt::format("mariadb run gave no result:\n{}{}", r.out, r.err));
    std::remove(sql_path.c_str());
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.note =
        "n_leaf_pages from mysql.innodb_index_stats after ANALYZE TABLE; splits from "
        "INNODB_METRICS index_page_splits; fill = rows x record bytes / (leaf pages x 16252)";
    return m;
  }

 private:
  static double fill(std::uint64_t rows, int record_bytes, std::uint64_t leaf) {
    return leaf ? static_cast<double>(rows) * record_bytes /
                      (static_cast<double>(leaf) * InnodbPage::kUsable)
                : 0;
  }

  // The table (key, the secondary columns and their indexes, fixed-length payload columns:
  // the row is exactly what the model sizes), the stream as multi-row INSERTs in arrival
  // order, then the statistics of every index.
  static void write_sql(const KeyStream& stream, const TableSpec& table, const std::string& path) {
    const bool binary = table.key_type == KeyType::binary16;
    std::ofstream sql(path);
    sql << "DROP DATABASE IF EXISTS idb; CREATE DATABASE idb; USE idb;\n";
    std::string columns, payload;
    if (table.secondary) {
      columns += ", created_at BIGINT UNSIGNED NOT NULL, owner_id BIGINT UNSIGNED NOT NULL";
    }
    const std::vector<int> widths = sql::payload_columns(table.payload_bytes);
    for (std::size_t c = 0; c < widths.size(); ++c) {
      columns += fmt::format(", p{} BINARY({}) NOT NULL", c, widths[c]);
      payload += fmt::format(", REPEAT('x', {})", widths[c]);
    }
    if (table.secondary) columns += ", KEY k_created (created_at), KEY k_owner (owner_id)";
    sql << fmt::format(
        "CREATE TABLE t (id {} NOT NULL PRIMARY KEY{}) ENGINE=InnoDB ROW_FORMAT=DYNAMIC "
        "STATS_PERSISTENT=1 STATS_AUTO_RECALC=0;\n",
        binary ? "BINARY(16)" : "BIGINT UNSIGNED", columns);
    sql << "SET GLOBAL innodb_monitor_reset = 'index_page_splits';\n";
    // Multi-row INSERTs keep arrival order within and across statements.
    constexpr std::size_t kBatch = 2000;
    for (std::size_t i = 0; i < stream.keys.size(); i += kBatch) {
      sql << "INSERT IGNORE INTO t VALUES ";
      for (std::size_t j = i; j < std::min(stream.keys.size(), i + kBatch); ++j) {
        if (j > i) sql << ',';
        if (binary) {
          sql << "(X'" << sql::hex16(stream.keys[j]) << '\'';
        } else {
          sql << '(' << stream.keys[j].lo;
        }
        if (table.secondary) {
          sql << ',' << secondary::created_at(j) << ',' << secondary::owner_id(j);
        }
        sql << payload << ')';
      }
      sql << ";\n";
    }
    sql << "ANALYZE TABLE t PERSISTENT FOR ALL;\n";
    auto leaf_of = [](const char* index) {
      return fmt::format(
          " (SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = 'idb'"
          "  AND table_name = 't' AND index_name = '{}' AND stat_name = 'n_leaf_pages')",
          index);
    };
    sql << "SELECT 'RESULT'," << leaf_of("PRIMARY")
        << ", (SELECT COUNT_RESET FROM information_schema.INNODB_METRICS"
           "  WHERE NAME = 'index_page_splits'),"
           " (SELECT COUNT(*) FROM t)";
    if (table.secondary) {
      for (const char* name : secondary::kIndexNames) sql << ',' << leaf_of(name);
    }
    sql << ";\n";
    sql << "DROP DATABASE idb;\n";
  }

  plumbing::DbServer db_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Engine> make_mariadb_engine() { return std::make_unique<MariadbEngine>(); }

}  // namespace idbench::locality
