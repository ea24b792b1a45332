// validate.cpp — the model against real engines on the validation streams (see validate.hpp).
#include "bench/locality/validate.hpp"

#include <fmt/format.h>

#include <cmath>

#include "generators/registry.hpp"

namespace idbench::locality {

namespace {

// The validation streams are picked by what a variant is, never by its name: the first
// registry variant that fits each description.
const Variant* first_variant(bool (*fits)(const Variant&)) {
  for (const auto& v : variants()) {
    if (fits(v)) return &v;
  }
  return nullptr;
}

// A UUID with no time and no order (UUIDv4).
bool unordered_uuid(const Variant& v) {
  return v.width == IdWidth::bits128 && v.id_time == IdTime::none && v.ordering == Ordering::none;
}
// A UUIDv7 with a counter: strictly increasing within a ms.
bool counter_uuidv7(const Variant& v) {
  return v.id_time == IdTime::uuidv7 && v.ordering == Ordering::k_sorted;
}
// A UUIDv7 with random bits within a ms.
bool random_uuidv7(const Variant& v) {
  return v.id_time == IdTime::uuidv7 && v.ordering != Ordering::k_sorted;
}
// The Snowflake layout validated is "twitter": any variant that takes a layout issues the same
// IDs from a manual clock.
bool layout_snowflake(const Variant& v) { return v.uses_layout && v.time_based; }

StreamSpec variant_spec(const Variant& v, std::uint64_t rows, double rate,
                        std::uint64_t writers = 1, Arrival arrival = Arrival::round_robin) {
  StreamSpec s;
  s.variant = std::string(v.name);
  s.rows = rows;
  s.rate = rate;
  s.writers = writers;
  s.arrival = arrival;
  return s;
}

}  // namespace

std::vector<ValidationStream> validation_matrix(std::uint64_t rows) {
  StreamSpec seq;
  seq.synthetic = Synthetic::sequential;
  seq.rows = rows;
  StreamSpec rnd = seq;
  rnd.synthetic = Synthetic::random;
  std::vector<ValidationStream> out = {{"sequential bigint", seq, true, std::nullopt, false},
                                       {"uniform random bigint", rnd, false, std::nullopt, false}};
  if (const Variant* v = first_variant(unordered_uuid)) {
    out.push_back({std::string(v->name), variant_spec(*v, rows, 50), false, std::nullopt, false});
  }
  if (const Variant* v = first_variant(counter_uuidv7)) {
    out.push_back({fmt::format("{} (counter), 50/ms", v->name), variant_spec(*v, rows, 50), true,
                   std::nullopt, false});
  }
  if (const Variant* v = first_variant(random_uuidv7)) {
    for (const double rate : {5.0, 50.0, 1000.0}) {
      out.push_back({fmt::format("{}, {}/ms", v->name, rate), variant_spec(*v, rows, rate), false,
                     std::nullopt, false});
    }
  }
  if (const Variant* v = first_variant(layout_snowflake)) {
    for (const Arrival a : {Arrival::round_robin, Arrival::random}) {
      out.push_back({fmt::format("twitter 8 writers x 5/ms, {}", name_of(a)),
                     variant_spec(*v, rows, 40, 8, a), true, std::nullopt, false});
    }
  }
  return out;
}

std::vector<ValidationStream> secondary_validation_matrix(std::uint64_t rows) {
  std::vector<ValidationStream> out;
  if (const Variant* v = first_variant(layout_snowflake)) {
    for (const KeyType k : {KeyType::bigint, KeyType::binary16}) {
      out.push_back({fmt::format("twitter 1 writer x 50/ms, {} PK + 2 secondary", name_of(k)),
                     variant_spec(*v, rows, 50), true, k, true});
    }
  }
  if (const Variant* v = first_variant(unordered_uuid)) {
    out.push_back({fmt::format("{}, binary16 PK + 2 secondary", v->name),
                   variant_spec(*v, rows, 50), false, KeyType::binary16, true});
  }
  return out;
}

namespace {

std::optional<double> relative(std::uint64_t model, std::uint64_t real) {
  if (real == 0) return std::nullopt;
  return (static_cast<double>(model) - static_cast<double>(real)) / static_cast<double>(real);
}

}  // namespace

std::optional<double> ValidationRow::error() const {
  if (!innodb || !innodb->leaf_pages) return std::nullopt;
  return relative(*model.leaf_pages, *innodb->leaf_pages);
}

std::vector<std::optional<double>> ValidationRow::secondary_errors() const {
  std::vector<std::optional<double>> out;
  for (std::size_t i = 0; i < model.secondary.size(); ++i) {
    out.push_back(innodb && i < innodb->secondary.size()
                      ? relative(model.secondary[i].leaf_pages, innodb->secondary[i].leaf_pages)
                      : std::nullopt);
  }
  return out;
}

bool ValidationRow::pass() const {
  if (!innodb) return true;
  const auto within = [&](const std::optional<double>& e) {
    return e && std::abs(*e) <= tolerance;
  };
  if (!within(error())) return false;
  for (const auto& e : secondary_errors()) {
    if (!within(e)) return false;
  }
  return true;
}

bool ValidationReport::pass() const {
  for (const auto& r : rows) {
    if (!r.pass()) return false;
  }
  return true;
}

ValidationReport run_validation(const ValidationOptions& options) {
  ValidationReport report;
  auto say = [&](const std::string& line) {
    if (options.progress) *options.progress << line << std::endl;
  };
  auto model = make_model_engine({}, options.split_rule, options.secondary_without_pk);
  std::unique_ptr<Engine> sqlite, mariadb, postgres;
  auto open = [&](bool wanted, auto make, std::unique_ptr<Engine>& slot, const char* name) {
    if (!wanted) return;
    say(fmt::format("starting {} ...", name));
    try {
      slot = make();
    } catch (const EngineUnavailable& e) {
      report.unavailable.push_back(e.what());
      say(e.what());
    }
  };
  open(options.sqlite, make_sqlite_engine, sqlite, "sqlite");
  open(options.mariadb, make_mariadb_engine, mariadb, "mariadb");
  open(options.postgres, make_postgres_engine, postgres, "postgres");
  report.innodb_ran = mariadb != nullptr;
  // Every stream at every row size, then the secondary-index streams at one row size.
  std::vector<std::pair<ValidationStream, std::vector<int>>> plan;
  for (auto& vs : validation_matrix(options.rows)) plan.emplace_back(vs, options.payloads);
  if (options.secondary) {
    for (auto& vs : secondary_validation_matrix(options.rows)) {
      plan.emplace_back(vs, std::vector<int>{kSecondaryPayload});
    }
  }
  std::size_t total = 0;
  for (const auto& [vs, payloads] : plan) total += payloads.size();
  for (const auto& [vs, payloads] : plan) {
    // One stream, materialised once, at every row size: UUID streams differ between builds.
    const KeyStream stream = build_stream(vs.spec);
    for (const int payload : payloads) {
      say(fmt::format("[{}/{}] stream: {}, {} B payload ({} rows)", report.rows.size() + 1, total,
                      vs.label, payload, options.rows));
      ValidationRow row;
      row.stream = vs;
      row.key_type = vs.key_type.value_or(default_key_type(stream.width));
      row.payload_bytes = payload;
      row.tolerance = vs.ordered ? 0.05 : 0.12;
      TableSpec table{row.key_type, payload, vs.secondary};
      check_table(table);
      TableSpec modelled = table;
      if (options.model_ignores_payload) modelled.payload_bytes = 0;
      row.model = model->run(stream, modelled);
      if (sqlite && !vs.secondary) row.sqlite = sqlite->run(stream, table);
      if (mariadb) row.innodb = mariadb->run(stream, table);
      if (postgres && !vs.secondary) row.postgres = postgres->run(stream, table);
      say(fmt::format("  model {} leaf pages{}", *row.model.leaf_pages,
                      row.innodb ? fmt::format(", InnoDB {}", *row.innodb->leaf_pages) : ""));
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

std::vector<std::string> check_order_agreement(const Metrics& model_sequential,
                                               const Metrics& model_random,
                                               const Metrics& engine_sequential,
                                               const Metrics& engine_random) {
  constexpr double kClearlyMore = 1.15;
  std::vector<std::string> failures;
  auto ratio = [](const Metrics& r, const Metrics& s) {
    return static_cast<double>(*r.leaf_pages) / static_cast<double>(*s.leaf_pages);
  };
  const double model_ratio = ratio(model_random, model_sequential);
  const double engine_ratio = ratio(engine_random, engine_sequential);
  if (model_ratio < kClearlyMore) {
    failures.push_back(fmt::format("model: random/sequential leaf pages = {:.2f} (< {:.2f})",
                                   model_ratio, kClearlyMore));
  }
  if (engine_ratio < kClearlyMore) {
    failures.push_back(fmt::format("{}: random/sequential leaf pages = {:.2f} (< {:.2f})",
                                   engine_random.engine, engine_ratio, kClearlyMore));
  }
  // The sequential fill of a B-tree that splits appends at the edge is well above 3/4 in any
  // engine; a model below that has lost its sequential rule.
  if (*model_sequential.avg_leaf_fill < 0.75) {
    failures.push_back(
        fmt::format("model: sequential fill {:.1f}% < 75%", 100 * *model_sequential.avg_leaf_fill));
  }
  if (*engine_sequential.avg_leaf_fill < 0.75) {
    failures.push_back(fmt::format("{}: sequential fill {:.1f}% < 75%", engine_sequential.engine,
                                   100 * *engine_sequential.avg_leaf_fill));
  }
  return failures;
}

}  // namespace idbench::locality
