// The validation against real engines, small enough for CI: SQLite always (embedded), MariaDB
// InnoDB when mariadb-server is installed (skipped otherwise), and the planted defect — a
// model with a wrong split rule — that each check must catch.
#include "bench/locality/validate.hpp"

#include <gtest/gtest.h>

namespace idbench::locality {
namespace {

constexpr std::uint64_t kRows = 20'000;

KeyStream synthetic(Synthetic kind) {
  StreamSpec s;
  s.synthetic = kind;
  s.rows = kRows;
  return build_stream(s);
}

struct Pair {
  Metrics sequential, random;
};

Pair run(Engine& engine) {
  const TableSpec table{KeyType::bigint, 0};
  return {engine.run(synthetic(Synthetic::sequential), table),
          engine.run(synthetic(Synthetic::random), table)};
}

TEST(ValidateSqlite, ModelAndSqliteAgreeThatRandomKeysNeedMorePages) {
  auto model = make_model_engine();
  auto sqlite = make_sqlite_engine();
  const Pair m = run(*model), s = run(*sqlite);
  EXPECT_EQ(s.sequential.rows, kRows);
  const auto failures = check_order_agreement(m.sequential, m.random, s.sequential, s.random);
  EXPECT_TRUE(failures.empty()) << failures.front();
}

TEST(ValidateSqlite, PlantedDefectMiddleOnlySplitIsCaught) {
  auto model = make_model_engine({}, SplitRule::middle_only);
  auto sqlite = make_sqlite_engine();
  const Pair m = run(*model), s = run(*sqlite);
  EXPECT_FALSE(check_order_agreement(m.sequential, m.random, s.sequential, s.random).empty());
}

// Small enough for CI: 30,000 rows, key-only and the widest validated row (the full four row
// sizes at 300,000 rows are `idbench locality --validate`).
ValidationReport innodb_report(SplitRule rule, std::vector<int> payloads = {0, 1000},
                               bool ignore_payload = false, bool secondary = true) {
  ValidationOptions opts;
  opts.secondary = secondary;
  opts.rows = 30'000;
  opts.payloads = std::move(payloads);
  opts.sqlite = false;
  opts.postgres = false;
  opts.split_rule = rule;
  opts.model_ignores_payload = ignore_payload;
  return run_validation(opts);
}

TEST(ValidateInnodb, ModelWithinToleranceOfMariadbOnEveryStreamAndRowSize) {
  const ValidationReport report = innodb_report(SplitRule::innodb);
  if (!report.innodb_ran) GTEST_SKIP() << report.unavailable.front();
  EXPECT_EQ(report.rows.size(),
            2 * validation_matrix(1).size() + secondary_validation_matrix(1).size());
  int wide = 0, with_secondary = 0;
  for (const auto& r : report.rows) {
    wide += r.payload_bytes == 1000;
    with_secondary += r.innodb->secondary.size() == 2 && r.secondary_errors().size() == 2;
    EXPECT_TRUE(r.pass()) << r.stream.label << ", " << r.payload_bytes << " B: model "
                          << *r.model.leaf_pages << " vs InnoDB " << *r.innodb->leaf_pages;
  }
  EXPECT_EQ(wide, static_cast<int>(validation_matrix(1).size()));
  EXPECT_EQ(with_secondary, static_cast<int>(secondary_validation_matrix(1).size()));
}

// Secondary entries without the primary key: the wide-key cost the model must show is gone.
TEST(ValidateInnodb, PlantedDefectSecondaryEntriesWithoutThePrimaryKeyAreCaught) {
  ValidationOptions opts;
  opts.rows = 30'000;
  opts.payloads = {};
  opts.sqlite = false;
  opts.postgres = false;
  opts.secondary_without_pk = true;
  const ValidationReport report = run_validation(opts);
  if (!report.innodb_ran) GTEST_SKIP() << report.unavailable.front();
  ASSERT_EQ(report.rows.size(), secondary_validation_matrix(1).size());
  for (const auto& r : report.rows) EXPECT_FALSE(r.pass()) << r.stream.label;
}

TEST(ValidationMatrix, SecondaryStreamsCompareTheSameKeysAsBigintAndBinary16) {
  const auto m = secondary_validation_matrix(1000);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].spec.variant, m[1].spec.variant);
  EXPECT_EQ(m[0].key_type, KeyType::bigint);
  EXPECT_EQ(m[1].key_type, KeyType::binary16);
  for (const auto& vs : m) EXPECT_TRUE(vs.secondary);
}

TEST(ValidateInnodb, PlantedDefectMiddleOnlySplitDisagreesWithMariadb) {
  const ValidationReport report = innodb_report(SplitRule::middle_only, {0}, false, false);
  if (!report.innodb_ran) GTEST_SKIP() << report.unavailable.front();
  EXPECT_FALSE(report.pass());
}

// A model that sized rows key-only whatever the table holds must be caught at a real row size.
TEST(ValidateInnodb, PlantedDefectModelIgnoringThePayloadDisagreesWithMariadb) {
  const ValidationReport report = innodb_report(SplitRule::innodb, {250}, true, false);
  if (!report.innodb_ran) GTEST_SKIP() << report.unavailable.front();
  EXPECT_FALSE(report.pass());
}

TEST(ValidationPayloads, KeyOnlyAndThreeRealisticRowSizesAllStoredInPage) {
  EXPECT_EQ(kValidationPayloads, (std::vector<int>{0, 100, 250, 1000}));
  for (const int p : kValidationPayloads) EXPECT_LE(p, max_payload_bytes(16));
}

// The streams are chosen by description, and are the ones the results were always
// computed on: same labels, same variants, same rates.
TEST(ValidationMatrix, SameStreamsAsBeforeChosenByDescription) {
  const auto m = validation_matrix(1000);
  std::vector<std::string> labels, variants_used;
  for (const auto& vs : m) {
    labels.push_back(vs.label);
    variants_used.push_back(vs.spec.variant);
  }
  EXPECT_EQ(labels,
            (std::vector<std::string>{
                "sequential bigint", "uniform random bigint", "uuidv4", "uuidv7 (counter), 50/ms",
                "uuidv7-random, 5/ms", "uuidv7-random, 50/ms", "uuidv7-random, 1000/ms",
                "twitter 8 writers x 5/ms, round-robin", "twitter 8 writers x 5/ms, random"}));
  EXPECT_EQ(variants_used,
            (std::vector<std::string>{"", "", "uuidv4", "uuidv7", "uuidv7-random", "uuidv7-random",
                                      "uuidv7-random", "mutex", "mutex"}));
  EXPECT_EQ(m[6].spec.rate, 1000.0);
  EXPECT_EQ(m[8].spec.writers, 8u);
  EXPECT_EQ(m[8].spec.arrival, Arrival::random);
  EXPECT_EQ(m[3].ordered, true);
  EXPECT_EQ(m[4].ordered, false);
}

}  // namespace
}  // namespace idbench::locality
