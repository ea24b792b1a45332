// The model as an engine: run the stream through InnodbModel and derive every metric.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <type_traits>

#include "bench/locality/engines.hpp"
#include "bench/locality/trace_metrics.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::locality {

namespace {

Key128 wide_key(const Id& id) { return Key128{id.hi} << 64 | id.lo; }

// BINARY(16) keys compare as the whole ID does; BIGINT keys are the ID's low 64 bits.
template <class Key>
Key model_key(const Id& id) {
  if constexpr (std::is_same_v<Key, Key128>) {
    return wide_key(id);
  } else {
    return id.lo;
  }
}

class ModelEngine final : public Engine {
 public:
  ModelEngine(const PoolSpec& pool, SplitRule rule, bool secondary_without_pk)
      : pool_(pool), rule_(rule), secondary_without_pk_(secondary_without_pk) {}
  std::string name() const override { return "model"; }

  Metrics run(const KeyStream& stream, const TableSpec& table) override {
    if (table.key_type == KeyType::binary16) return run_as<Key128>(stream, table);
    return run_as<std::uint64_t>(stream, table);
  }

 private:
  template <class Key>
  Metrics run_as(const KeyStream& stream, const TableSpec& table) {
    ModelOptions opts;
    opts.key_bytes = key_bytes(table.key_type);
    opts.payload_bytes = table.column_bytes();
    opts.split_rule = rule_;
    InnodbModel<Key> model(opts);
    std::vector<InnodbModel<SecondaryKey>> indexes;
    if (table.secondary) {
      ModelOptions sec = opts;
      sec.key_bytes = 8 + (secondary_without_pk_ ? 0 : opts.key_bytes);
      sec.payload_bytes = 0;
      sec.clustered = false;
      sec.trace = false;
      indexes.assign(2, InnodbModel<SecondaryKey>(sec));
    }
    const auto start = std::chrono::steady_clock::now();
    insert_stream(stream, model, indexes);
    const double insert_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Metrics m;
    m.engine = "model";
    m.engine_version = rule_ == SplitRule::innodb ? "innodb (MariaDB 10.11 rules)"
                                                  : "middle-only (planted defect)";
    m.key_type = table.key_type;
    m.rows = model.rows();
    m.leaf_pages = model.leaf_pages();
    m.avg_leaf_fill = model.avg_leaf_fill();
    m.splits_per_1k = m.rows ? 1000.0 * model.counters().splits / m.rows : 0;
    m.height = model.height();
    m.inserts_per_s = insert_s > 0 ? stream.keys.size() / insert_s : 0;
    m.distinct_leaves_per_1k = distinct_leaves_per_1k(model.trace(), model.total_pages());
    const std::uint64_t pool =
        pool_.pages ? *pool_.pages
                    : std::max<std::uint64_t>(
                          1, static_cast<std::uint64_t>(std::ceil(
                                 pool_.percent / 100.0 * static_cast<double>(model.leaf_pages()))));
    m.pool_pages = pool;
    m.pool_miss_rate = simulate_lru(model.trace(), model.total_pages(), pool).miss_rate();
    for (std::size_t k = 0; k < indexes.size(); ++k) {
      m.secondary.push_back({secondary::kIndexNames[k], indexes[k].leaf_pages(),
                             indexes[k].avg_leaf_fill()});
    }
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.note = fmt::format("{} B leaf records, {} root raises, {} right-sibling inserts, {} scans",
                         opts.leaf_record_bytes(), model.counters().root_raises,
                         model.counters().right_sibling_inserts, model.counters().pointer_scans);
    return m;
  }

  // Every key of the stream into the model, in chunks (InnodbModel::insert_batch); a key new to
  // the table also into the secondary indexes (INSERT IGNORE skips a duplicate's whole row).
  template <class Key>
  static void insert_stream(const KeyStream& stream, InnodbModel<Key>& model,
                            std::vector<InnodbModel<SecondaryKey>>& indexes) {
    constexpr std::size_t kChunk = 4096;
    std::vector<Key> keys(kChunk);
    const auto fresh = std::make_unique<bool[]>(kChunk);
    for (std::size_t done = 0; done < stream.keys.size(); done += kChunk) {
      plumbing::throw_if_interrupted();  // a matrix's SIGINT
      const std::size_t n = std::min(kChunk, stream.keys.size() - done);
      for (std::size_t j = 0; j < n; ++j) keys[j] = model_key<Key>(stream.keys[done + j]);
      model.insert_batch(keys.data(), n, fresh.get());
      if (indexes.empty()) continue;
      for (std::size_t j = 0; j < n; ++j) {
        if (!fresh[j]) continue;
        const std::size_t i = done + j;
        const Key128 wide = wide_key(stream.keys[i]);
        indexes[0].insert({secondary::created_at(i), wide});
        indexes[1].insert({secondary::owner_id(i), wide});
      }
    }
  }

  PoolSpec pool_;
  SplitRule rule_;
  bool secondary_without_pk_;
};

}  // namespace

std::unique_ptr<Engine> make_model_engine(const PoolSpec& pool, SplitRule rule,
                                          bool secondary_without_pk) {
  return std::make_unique<ModelEngine>(pool, rule, secondary_without_pk);
}

std::vector<std::string> engine_names() { return {"model", "sqlite", "mariadb", "postgres"}; }

std::unique_ptr<Engine> make_engine(std::string_view name, const PoolSpec& pool) {
  if (name == "model") return make_model_engine(pool);
  if (name == "sqlite") return make_sqlite_engine();
  if (name == "mariadb") return make_mariadb_engine();
  if (name == "postgres") return make_postgres_engine();
  throw Error(fmt::format("unknown engine '{}'; one of: model, sqlite, mariadb, postgres", name));
}

namespace secondary {

std::uint64_t created_at(std::size_t i) { return i + 1; }

std::uint64_t owner_id(std::size_t i) {
  // splitmix64 of the row number: fixed, so every engine and every run sees the same owners.
  std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % kOwners + 1;
}

}  // namespace secondary

void check_table(const TableSpec& table) {
  const int limit = max_payload_bytes(key_bytes(table.key_type)) - (table.column_bytes() -
                                                                     table.payload_bytes);
  if (table.payload_bytes < 0) throw Error("--payload-bytes must be ≥ 0");
  if (table.payload_bytes > limit) {
    throw Error(fmt::format(
        "--payload-bytes {} is beyond InnoDB's in-page limit ({} bytes with a {} key: a record "
        "must stay below half a 16 KiB page); InnoDB refuses such a fixed-length row (Row size "
        "too large) and stores longer variable-length columns off-page, which the model does not "
        "model",
        table.payload_bytes, limit, name_of(table.key_type)));
  }
}

namespace sql {

std::vector<int> payload_columns(int payload_bytes) {
  constexpr int kMaxBinary = 255;  // BINARY(M): M ≤ 255
  std::vector<int> widths(static_cast<std::size_t>(payload_bytes / kMaxBinary), kMaxBinary);
  if (payload_bytes % kMaxBinary != 0) widths.push_back(payload_bytes % kMaxBinary);
  return widths;
}

std::string hex16(const Id& id) { return fmt::format("{:016x}{:016x}", id.hi, id.lo); }

bool needs_signed_shift(const KeyStream& stream) {
  for (const Id& id : stream.keys) {
    if (id.lo >> 63) return true;
  }
  return false;
}

std::int64_t signed_key(std::uint64_t key, bool shift) {
  return static_cast<std::int64_t>(shift ? key ^ (std::uint64_t{1} << 63) : key);
}

}  // namespace sql

}  // namespace idbench::locality
