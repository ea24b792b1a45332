// validate.hpp — does the model agree with real InnoDB? The streams of the validation matrix,
// each materialised once and fed to the model and to every real engine available.
//
// Tolerance on leaf pages (model vs MariaDB InnoDB): ±5 % for streams whose insert order is
// fixed by their keys' order (sequential, monotonic UUIDv7, Snowflake with a fixed arrival),
// ±12 % for streams with random key order, where two runs of the same engine differ too.
//
// Thread safety: thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/locality/engines.hpp"
#include "bench/locality/key_stream.hpp"

namespace idbench::locality {

struct ValidationStream {
  std::string label;
  StreamSpec spec;
  bool ordered = true;  // key order fixed by the stream: the tight tolerance applies
  std::optional<KeyType> key_type;  // nullopt: from the stream's width
  bool secondary = false;           // with the two secondary indexes (TableSpec::secondary)
};

// The secondary-index streams, at kSecondaryPayload bytes: one Snowflake writer stored as
// BIGINT and as BINARY(16) — the same keys, so the difference is the key's width alone — and
// UUIDv4 as BINARY(16), the random wide key.
inline constexpr int kSecondaryPayload = 100;
std::vector<ValidationStream> secondary_validation_matrix(std::uint64_t rows);

// The matrix: sequential and uniform random BIGINT, an unordered UUID (UUIDv4), a
// counter UUIDv7 at 50 per ms, a UUIDv7 with random bits within the ms at 5, 50 and 1000 per
// ms, and 8-writer Snowflake (twitter layout, 5 per ms per writer) with round-robin and random
// arrival. Each variant is the first in the registry whose description fits (width, id_time,
// ordering, uses_layout); a stream no variant fits is left out.
std::vector<ValidationStream> validation_matrix(std::uint64_t rows);

// The row sizes the validation runs every stream at, in payload bytes beside the key:
//   0     key-only, the table the model was first validated on;
//   100   a narrow row (a few integers, two timestamps, a short string): events, links;
//   250   a typical OLTP row (orders, users, sessions);
//   1000  a wide row with text: ~15 rows per leaf, where each insert point holds a page of
//         its own and the key-only verdicts flip.
// The 1,000-byte runs are the long ones (300 MB per stream at 300,000 rows).
inline const std::vector<int> kValidationPayloads = {0, 100, 250, 1000};

struct ValidationRow {
  ValidationStream stream;
  KeyType key_type = KeyType::bigint;
  int payload_bytes = 0;
  Metrics model;
  std::optional<Metrics> innodb, sqlite, postgres;
  double tolerance = 0.05;
  // (model - innodb) / innodb, when InnoDB ran.
  std::optional<double> error() const;
  // The same for each secondary index (Metrics::secondary order); empty without them. An
  // index InnoDB did not report is an error of nullopt, which fails.
  std::vector<std::optional<double>> secondary_errors() const;
  bool pass() const;
};

struct ValidationOptions {
  std::uint64_t rows = 300'000;
  std::vector<int> payloads = kValidationPayloads;  // each stream at each row size
  bool sqlite = true;
  bool mariadb = true;
  bool postgres = true;
  SplitRule split_rule = SplitRule::innodb;  // middle_only: the planted defect
  // A planted defect: the model sizes every row key-only, whatever the real table holds.
  bool model_ignores_payload = false;
  // A planted defect: the model's secondary entries lack the primary key.
  bool secondary_without_pk = false;
  bool secondary = true;  // also the secondary-index streams
  std::ostream* progress = nullptr;          // one line per stream and engine
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<std::string> unavailable;  // messages of engines that could not start
  bool innodb_ran = false;
  bool pass() const;
};

ValidationReport run_validation(const ValidationOptions& options);

// A weaker check for engines with other split rules (SQLite): both must agree that a random
// stream needs clearly more leaf pages than a sequential one (ratio ≥ 1.15). Returns the
// failures, empty when they agree.
std::vector<std::string> check_order_agreement(const Metrics& model_sequential,
                                               const Metrics& model_random,
                                               const Metrics& engine_sequential,
                                               const Metrics& engine_random);

}  // namespace idbench::locality
