// sqlite_engine.cpp — SQLite, embedded: a WITHOUT ROWID table is a B-tree keyed by the
// primary key, SQLite's nearest thing to a clustered index. 16 KiB pages so leaf counts compare with InnoDB's; its
// split rules are its own (balance_quick for appends at the right edge, balance_nonroot
// redistributing among up to three siblings otherwise), which is the point of showing it.
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <vector>

#include "bench/locality/engines.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::locality {

namespace {

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw Error("sqlite3_open failed");
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  sqlite3* get() { return db_; }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = fmt::format("sqlite: {}: {}", sql, err ? err : "?");
      sqlite3_free(err);
      throw Error(msg);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
      throw Error(fmt::format("sqlite: cannot prepare {}: {}", sql, sqlite3_errmsg(db)));
    }
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// How often the insert loop looks for a signal: cheap, and well under a second of inserts.
constexpr std::size_t kInterruptCheckRows = 4096;

class SqliteEngine final : public Engine {
 public:
  std::string name() const override { return "sqlite"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    if (table.secondary) {
      throw Error("secondary indexes are modelled for InnoDB: use --engine model or mariadb");
    }
    const auto start = std::chrono::steady_clock::now();
    // A signal unwinds (Interrupted) so the directory goes; what a SIGKILL leaves is swept by
    // the next run's first TempDir.
    const plumbing::InterruptGuard guard;
    const plumbing::TempDir dir("idbench-sqlite");
    Metrics m;
    m.engine = "sqlite";
    m.engine_version = sqlite3_libversion();
    m.key_type = table.key_type;
    {
      Db db(dir.path() + "/t.db");
      // page_size must precede the first table; no journal or fsync: only page layout matters.
      db.exec("PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
      const bool binary = table.key_type == KeyType::binary16;
      db.exec(fmt::format("CREATE TABLE t (id {} NOT NULL PRIMARY KEY{}) WITHOUT ROWID",
                          binary ? "BLOB" : "INTEGER",
                          table.payload_bytes > 0 ? ", payload BLOB NOT NULL" : ""));
      const bool shift = !binary && sql::needs_signed_shift(stream);
      db.exec("BEGIN");
      Stmt ins(db.get(), table.payload_bytes > 0 ? "INSERT OR IGNORE INTO t VALUES (?, ?)"
                                                 : "INSERT OR IGNORE INTO t VALUES (?)");
      std::vector<unsigned char> payload(static_cast<std::size_t>(table.payload_bytes), 0xAB);
      std::size_t inserted = 0;
      for (const Id& id : stream.keys) {
        if (++inserted % kInterruptCheckRows == 0) plumbing::throw_if_interrupted();
        if (binary) {
          const Uuid u = id.to_uuid();
          sqlite3_bind_blob(ins.get(), 1, u.bytes.data(), 16, SQLITE_TRANSIENT);
        } else {
          sqlite3_bind_int64(ins.get(), 1, sql::signed_key(id.lo, shift));
        }
        if (table.payload_bytes > 0) {
          sqlite3_bind_blob(ins.get(), 2, payload.data(), table.payload_bytes, SQLITE_STATIC);
        }
        if (sqlite3_step(ins.get()) != SQLITE_DONE) {
          throw Error(fmt::format("sqlite insert failed: {}", sqlite3_errmsg(db.get())));
        }
        sqlite3_reset(ins.get());
      }
      db.exec("COMMIT");
      Stmt q(db.get(),
             "SELECT (SELECT count(*) FROM t),"
             " sum(pagetype = 'leaf'),"
             " sum(CASE WHEN pagetype = 'leaf' THEN pgsize - unused END),"
             " sum(CASE WHEN pagetype = 'leaf' THEN pgsize END),"
             " max(length(path) - length(replace(path, '/', '')))"
             " FROM dbstat WHERE name = 't'");
      if (sqlite3_step(q.get()) != SQLITE_ROW) throw Error("sqlite: dbstat query failed");
      m.rows = static_cast<std::uint64_t>(sqlite3_column_int64(q.get(), 0));
      m.leaf_pages = static_cast<std::uint64_t>(sqlite3_column_int64(q.get(), 1));
      const double used = sqlite3_column_double(q.get(), 2);
      const double size = sqlite3_column_double(q.get(), 3);
      m.avg_leaf_fill = size > 0 ? used / size : 0;
      m.height = sqlite3_column_int(q.get(), 4);
    }
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.note = "dbstat leaf pages; fill = (pgsize - unused) / pgsize; SQLite counts no splits";
    return m;
  }
};

}  // namespace

std::unique_ptr<Engine> make_sqlite_engine() { return std::make_unique<SqliteEngine>(); }

}  // namespace idbench::locality
