// MariaDB (InnoDB), in a private mariadbd: started on a unix socket in a temp directory with
// networking off, stopped (SIGTERM, then SIGKILL) when the engine is destroyed, the
// directory removed. The ground truth the model is validated against.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/locality/engines.hpp"
#include "bench/locality/process.hpp"

namespace idbench::locality {

namespace {

constexpr const char* kMissing =
    "MariaDB is not installed: the mariadb engine needs the Debian packages mariadb-server and "
    "mariadb-client (apt-get install mariadb-server mariadb-client; ./run.sh installs them)";

class MariadbEngine final : public Engine {
 public:
  MariadbEngine() : dir_("idbench-mariadb-") {
    const std::string server = find_program("mariadbd");
    const std::string install = find_program("mariadb-install-db");
    client_ = find_program("mariadb");
    if (server.empty() || install.empty() || client_.empty()) throw EngineUnavailable(kMissing);
    const std::string data = dir_.path() + "/data";
    socket_ = dir_.path() + "/mysqld.sock";
    const bool root = geteuid() == 0;
    // mariadbd refuses root unless told --user=root; it then stays root inside its own
    // private directory, which is all it touches.
    // A private --tmpdir (passed through to the bootstrap server too): a mariadbd starting
    // up removes stale #sql temp files from its tmpdir, which in a shared /tmp are another
    // instance's live temporary tables (seen with two tests bootstrapping at once).
    std::vector<std::string> install_argv = {install,
                                             "--no-defaults",
                                             "--datadir=" + data,
                                             "--tmpdir=" + dir_.path(),
                                             "--auth-root-authentication-method=normal",
                                             "--skip-test-db"};
    if (root) install_argv.push_back("--user=root");
    const auto installed = run_command(install_argv, dir_.path(), "", 180);
    if (installed.exit_code != 0) {
      throw Error(fmt::format("mariadb-install-db failed:\n{}{}", installed.out, installed.err));
    }
    std::vector<std::string> argv = {
        server, "--no-defaults", "--datadir=" + data, "--tmpdir=" + dir_.path(),
        "--socket=" + socket_, "--skip-networking", "--pid-file=" + dir_.path() + "/mysqld.pid",
        "--skip-grant-tables",
        // Durability is irrelevant to page layout; these make the run fast.
        "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
        "--innodb-buffer-pool-size=1G", "--innodb-stats-auto-recalc=OFF", "--skip-log-bin"};
    if (root) argv.push_back("--user=root");
    log_ = dir_.path() + "/mysqld.log";
    server_ = std::make_unique<ServerProcess>(argv, log_);
    wait_ready();
    version_ = query("SELECT VERSION()");
    query("SET GLOBAL innodb_monitor_enable = 'index_page_splits'");
  }

  ~MariadbEngine() override {
    // Stop the server before the temp directory (declared first) is removed.
    if (server_) server_->stop();
  }

  std::string name() const override { return "mariadb"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    const auto start = std::chrono::steady_clock::now();
    const bool binary = table.key_type == KeyType::binary16;
    const std::string sql_path = dir_.path() + "/run.sql";
    {
      std::ofstream sql(sql_path);
      sql << "DROP DATABASE IF EXISTS idb; CREATE DATABASE idb; USE idb;\n";
      // Only the key (and an optional fixed payload): the row is exactly what the model sizes.
      sql << fmt::format(
          "CREATE TABLE t (id {} NOT NULL PRIMARY KEY{}) ENGINE=InnoDB ROW_FORMAT=DYNAMIC "
          "STATS_PERSISTENT=1 STATS_AUTO_RECALC=0;\n",
          binary ? "BINARY(16)" : "BIGINT UNSIGNED",
          table.payload_bytes > 0
              ? fmt::format(", payload BINARY({}) NOT NULL", table.payload_bytes)
              : "");
      sql << "SET GLOBAL innodb_monitor_reset = 'index_page_splits';\n";
      const std::string payload =
          table.payload_bytes > 0 ? fmt::format(", REPEAT('x', {})", table.payload_bytes) : "";
      // Multi-row INSERTs keep arrival order within and across statements.
      constexpr std::size_t kBatch = 2000;
      for (std::size_t i = 0; i < stream.keys.size(); i += kBatch) {
        sql << "INSERT IGNORE INTO t VALUES ";
        for (std::size_t j = i; j < std::min(stream.keys.size(), i + kBatch); ++j) {
          if (j > i) sql << ',';
          if (binary) {
            sql << "(X'" << sql::hex16(stream.keys[j]) << '\'' << payload << ')';
          } else {
            sql << '(' << stream.keys[j].lo << payload << ')';
          }
        }
        sql << ";\n";
      }
      sql << "ANALYZE TABLE t PERSISTENT FOR ALL;\n";
      sql << "SELECT 'RESULT',"
             " (SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = 'idb'"
             "  AND table_name = 't' AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'),"
             " (SELECT COUNT_RESET FROM information_schema.INNODB_METRICS"
             "  WHERE NAME = 'index_page_splits'),"
             " (SELECT COUNT(*) FROM t);\n";
      sql << "DROP DATABASE idb;\n";
    }
    const auto r = client(sql_path);
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
      opts.payload_bytes = table.payload_bytes;
      m.avg_leaf_fill = leaf ? static_cast<double>(rows) * opts.leaf_record_bytes() /
                                   (static_cast<double>(leaf) * InnodbPage::kUsable)
                             : 0;
      m.splits_per_1k = rows ? 1000.0 * static_cast<double>(splits) / static_cast<double>(rows) : 0;
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
  CommandResult client(const std::string& sql_file) {
    auto r = run_command({client_, "--no-defaults", "--socket=" + socket_, "--user=root", "--batch",
                          "--skip-column-names"},
                         dir_.path(), sql_file, 1800);
    if (r.exit_code != 0) throw Error(fmt::format("mariadb client failed:\n{}", r.err));
    return r;
  }

  std::string query(const std::string& q) {
    const std::string path = dir_.path() + "/q.sql";
    std::ofstream(path) << q << ";\n";
    auto r = client(path);
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }

  void wait_ready() {
    const std::string path = dir_.path() + "/ping.sql";
    std::ofstream(path) << "SELECT 1;\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!server_->running()) {
        throw Error(fmt::format("mariadbd exited during start-up:\n{}", read_file(log_)));
      }
      if (access(socket_.c_str(), F_OK) == 0) {
        auto r =
            run_command({client_, "--no-defaults", "--socket=" + socket_, "--user=root", "--batch"},
                        dir_.path(), path, 10);
        if (r.exit_code == 0) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw Error(fmt::format("mariadbd did not start within 90 s:\n{}", read_file(log_)));
  }

  TempDir dir_;
  std::string client_;
  std::string socket_;
  std::string log_;
  std::string version_;
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace

std::unique_ptr<Engine> make_mariadb_engine() { return std::make_unique<MariadbEngine>(); }

}  // namespace idbench::locality
