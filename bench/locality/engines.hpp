// engines.hpp — one stream of keys, inserted into one engine, measured the same way.
//
//   model     the InnoDB model (innodb_model.hpp), in process; the only engine with the
//             window and buffer-pool metrics (they need every page access).
//   sqlite    embedded SQLite, a WITHOUT ROWID table keyed by the ID, 16 KiB pages to match
//             InnoDB's; leaf figures from the dbstat virtual table.
//   mariadb   a private mariadbd (InnoDB) on a unix socket in a temp directory; leaf pages from
//             mysql.innodb_index_stats after ANALYZE TABLE, splits from INNODB_METRICS
//             index_page_splits (enabled, reset per run).
//   postgres  a private PostgreSQL cluster (initdb into a temp directory, socket only);
//             pgstattuple's pgstatindex() on the primary key index.
//
// Real servers are driven through their own command-line clients (`mariadb`, `psql`), not
// libmariadb or libpq: idbench then builds on a machine without either development package,
// and a server that is missing is a run-time message naming the package to install, not a
// build failure. The cost — SQL as text — is small beside the server's own work (multi-row
// INSERTs of 2,000 rows).
//
// Thread safety: an engine is thread-compatible; a server engine owns its server for its
// lifetime and stops it (and removes its directory) in the destructor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/locality/innodb_model.hpp"
#include "bench/locality/key_stream.hpp"
#include "generators/errors.hpp"

namespace idbench::locality {

struct TableSpec {
  KeyType key_type = KeyType::bigint;
  // Fixed-length NOT NULL binary columns beside the key, 0..max_payload_bytes(key) bytes in
  // all (real tables: BINARY(255) columns and one for the rest, see sql::payload_columns).
  int payload_bytes = 0;
  // Two secondary indexes beside the primary key, on two BIGINT NOT NULL columns the row then
  // carries (16 more bytes in every clustered record):
  //   k_created (created_at): the row's insert time, in arrival order — sequential;
  //   k_owner   (owner_id):   a foreign key to one of kOwners parents, uniform — random.
  // Every secondary entry holds its column and the primary key, so a BINARY(16) key makes
  // both 8 bytes wider per row than a BIGINT does.
  bool secondary = false;
  // Bytes beside the key in a clustered record.
  int column_bytes() const { return payload_bytes + (secondary ? 16 : 0); }
};

// The secondary columns' values for the i-th row of a stream (0-based), the same for every
// engine: created_at = i + 1 (a strictly increasing insert time); owner_id = a seeded uniform
// draw from [1, kOwners].
namespace secondary {
inline constexpr std::uint64_t kOwners = 100'000;
std::uint64_t created_at(std::size_t i);
std::uint64_t owner_id(std::size_t i);
inline constexpr const char* kIndexNames[] = {"k_created", "k_owner"};
}  // namespace secondary

// Throws idbench::Error (one sentence: the limit, and what InnoDB does beyond it) when the
// payload is negative or its record would not be stored in-page (InnodbPage::kMaxRecordBytes).
void check_table(const TableSpec& table);

// Every figure an engine can report; absent ones are std::nullopt (null in JSON).
struct Metrics {
  std::string engine;
  std::string engine_version;
  std::uint64_t rows = 0;  // rows in the table afterwards (duplicates in the stream are ignored)
  KeyType key_type = KeyType::bigint;
  std::optional<std::uint64_t> leaf_pages;
  std::optional<double> avg_leaf_fill;  // 0..1
  std::optional<double> splits_per_1k;
  std::optional<int> height;
  std::optional<double> distinct_leaves_per_1k;
  std::optional<double> pool_miss_rate;
  std::optional<std::uint64_t> pool_pages;
  std::optional<double> inserts_per_s;  // model only: its own insert speed
  // With TableSpec::secondary: each secondary index's leaf pages and fill (fill = entries ×
  // entry bytes / (leaf pages × 16,252)), in kIndexNames order.
  struct Index {
    std::string name;
    std::uint64_t leaf_pages = 0;
    double avg_leaf_fill = 0;
  };
  std::vector<Index> secondary;
  double seconds = 0;                   // wall time of the run
  std::string note;                     // how the figures were obtained
};

// A real engine whose package is missing; the message names the Debian package.
class EngineUnavailable : public Error {
 public:
  using Error::Error;
};

struct PoolSpec {
  std::optional<std::uint64_t> pages;  // --pool-pages
  double percent = 10;                 // --pool-percent, of the final leaf pages
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  virtual Metrics run(const KeyStream& stream, const TableSpec& table) = 0;
};

// secondary_without_pk: a planted defect — secondary entries without the primary key.
std::unique_ptr<Engine> make_model_engine(const PoolSpec& pool = {},
                                          SplitRule rule = SplitRule::innodb,
                                          bool secondary_without_pk = false);
std::unique_ptr<Engine> make_sqlite_engine();
// These start their server (seconds) and throw EngineUnavailable when it is not installed.
std::unique_ptr<Engine> make_mariadb_engine();
std::unique_ptr<Engine> make_postgres_engine();

// "model", "sqlite", "mariadb", "postgres".
std::unique_ptr<Engine> make_engine(std::string_view name, const PoolSpec& pool = {});
std::vector<std::string> engine_names();

// Shared by the engines that take SQL text.
namespace sql {
// 32 lowercase hex digits of a 128-bit key (big-endian, the order BINARY(16) compares in).
std::string hex16(const Id& id);
// Engines whose BIGINT is signed (SQLite, PostgreSQL) get keys ≥ 2^63 shifted down by 2^63
// (order-preserving) — only when the stream holds such keys, since the shift changes how
// SQLite sizes small integers.
bool needs_signed_shift(const KeyStream& stream);
// The widths of the fixed-length columns that hold `payload_bytes`: BINARY(M) takes M ≤ 255,
// so 1,000 bytes are 255, 255, 255, 235. Fixed-length NOT NULL columns add no length byte
// and no null bitmap to an InnoDB record, so the record is the model's, byte for byte.
std::vector<int> payload_columns(int payload_bytes);
std::int64_t signed_key(std::uint64_t key, bool shift);
}  // namespace sql

}  // namespace idbench::locality
