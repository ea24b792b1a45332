#include "generators/registry.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "generators/errors.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {

// One line per variant; each is defined in variants/<name>.cpp.
Variant describe_mutex();
Variant describe_cas();
Variant describe_thread_local();
Variant describe_uuidv7();
Variant describe_uuidv7_random();
Variant describe_uuidv4();
Variant describe_auto_increment();
Variant describe_ticket_pair();
Variant describe_uuidv1();
Variant describe_uuidv6();
Variant describe_uuidv8();
Variant describe_libuuid_v1();

Variant snowflake_variant(std::string_view name, std::string_view summary, NodeIds node_ids,
                          bool chaos_quick,
                          std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make) {
  return {.name = name,
          .summary = summary,
          .family = "snowflake",
          .scheme = "Snowflake",
          .width = IdWidth::bits64,
          .ordering = Ordering::k_sorted,
          .time_based = true,
          .uses_layout = true,
          .node_ids = node_ids,
          .id_time = IdTime::layout,
          .defaults = {.chaos = true, .chaos_quick = chaos_quick, .locality = true},
          .make = std::move(make)};
}

Variant time_uuid_variant(std::string_view name, std::string_view summary, Ordering ordering,
                          IdTime id_time,
                          std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make) {
  return {.name = name,
          .summary = summary,
          .family = "uuid",
          .scheme = "",  // a baseline's, unless the variant names its row
          .width = IdWidth::bits128,
          .ordering = ordering,
          .time_based = true,
          .id_time = id_time,
          .defaults = {},
          .make = std::move(make)};
}

Variant dce_uuid_variant(std::string_view name, std::string_view summary, Ordering ordering,
                         bool clock_sequence_quick,
                         std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make) {
  Variant v = time_uuid_variant(name, summary, ordering, IdTime::uuid, std::move(make));
  v.scheme = "DCE";
  v.node_ids = NodeIds::one;
  v.defaults = {.chaos = false,
                .chaos_quick = false,
                .locality = true,
                .clock_sequence = true,
                .clock_sequence_quick = clock_sequence_quick,
                .locality_live_pace = true};
  return v;
}

std::span<const Variant> variants() {
  static const std::vector<Variant> all = {
      describe_mutex(),          describe_cas(),           describe_thread_local(),
      describe_uuidv7(),         describe_uuidv7_random(), describe_uuidv4(),
      describe_auto_increment(), describe_ticket_pair(),   describe_uuidv1(),
      describe_uuidv6(),         describe_uuidv8(),        describe_libuuid_v1(),
  };
  return all;
}

namespace {

// KSUID's epoch: Unix second 1400000000 (2014-05-13T16:53:20Z), in ms.
constexpr std::int64_t kKsuidEpochMs = 1'400'000'000'000;

// The Unix ms of a v1, v6 or v7 UUID; nullopt for any other version.
std::optional<std::int64_t> uuid_unix_ms(const Id& id) {
  if (((id.hi >> 12) & 0xF) == 7) return static_cast<std::int64_t>(id.hi >> 16);
  const auto fields = uuid_format::dce_fields(id.to_uuid());
  if (!fields) return std::nullopt;
  return uuid_format::unix_ms_of_timestamp(fields->timestamp);
}

}  // namespace

std::optional<std::int64_t> unix_ms_of(IdTime how, const Id& id, const Layout& layout) {
  switch (how) {
    case IdTime::none:
      return std::nullopt;
    case IdTime::layout:
      if (id.hi != 0) return std::nullopt;
      return layout.checked_unix_ms_of_tick(layout.decode(id.lo).tick);
    case IdTime::uuidv7:
      return uuidv7_unix_ms(id);
    case IdTime::uuid:
      return uuid_unix_ms(id);
    case IdTime::ulid:
      return static_cast<std::int64_t>(id.hi >> 16);
    case IdTime::ksuid:
      return static_cast<std::int64_t>(id.hi >> 32) * 1000 + kKsuidEpochMs;
    case IdTime::xid:
      return static_cast<std::int64_t>(id.hi >> 32) * 1000;
    case IdTime::uuidv8:
      if (((id.hi >> 12) & 0xF) != 8) return std::nullopt;
      return static_cast<std::int64_t>(id.hi >> 16);
  }
  return std::nullopt;
}

std::string_view name_of(IdTime how) { return plumbing::name_in(kIdTimeNames, how); }
std::string_view name_of(Ordering ordering) { return plumbing::name_in(kOrderingNames, ordering); }
std::string_view name_of(NodeIds node_ids) { return plumbing::name_in(kNodeIdsNames, node_ids); }

std::optional<IdTime> id_time_named(std::string_view name) {
  return plumbing::value_in(kIdTimeNames, name);
}

const Variant* find_variant(std::string_view name) {
  for (const auto& v : variants()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::unique_ptr<Generator> make_generator(std::string_view name, const GeneratorOptions& opts) {
  const Variant* variant = find_variant(name);
  if (variant == nullptr) {
    std::string names;
    for (const auto& v : variants())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", v.name);
    throw Error(fmt::format("unknown variant '{}'; one of: {}", name, names));
  }
  auto gen = variant->make(opts);
  gen->set_name(std::string(variant->name));
  return gen;
}

}  // namespace idbench
