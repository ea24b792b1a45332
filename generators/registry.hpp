// registry.hpp — every variant idbench knows, by the name the CLI uses.
//
// The bench, locality and chaos code loop over `variants()`; none of them names a variant.
// Adding a variant is one file in variants/ defining `Variant describe_<name>()` and one line
// in registry.cpp.
//
// Thread safety: the registry is immutable.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "generators/generator.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench {

// How an ID carries the time it was issued: data, not code, so that a generator that lives
// outside idbench (a program speaking the line protocol) can be described the same way
// (`--id-time layout|uuidv7|none`). `unix_ms_of()` below is the one function that reads it.
enum class IdTime {
  none,    // no time inside (counters, UUIDv4)
  layout,  // a 64-bit Snowflake-family layout: tick field × unit + epoch
  uuidv7,  // RFC 9562 §5.7: the top 48 bits are Unix ms
  uuid,    // any UUID by its version: v1 and v6 (RFC 9562 §5.1, §5.6: a 60-bit count of
           // 100 ns since 1582-10-15) and v7; other versions carry no time. What an external
           // program's UUIDs are described with (`--id-time uuid`).
  ulid,    // a ULID as 128 bits: the top 48 are Unix ms, with no version nibble
  ksuid,   // a KSUID's first 16 bytes: the top 32 bits are seconds since 1400000000 (Unix s)
  xid,     // an xid (or a MongoDB ObjectId) as the top 96 of 128 bits: the top 32 are Unix seconds
  uuidv8,  // idbench's UUIDv8 (RFC 9562 §5.8, generators/uuid_format.hpp): the top 48 bits are
           // Unix ms as in v7, with version 8. A v8 layout is each program's own, so `uuid`
           // reads no time from version 8.
};

// The ordering a variant promises; the chaos analysis judges exactly this promise.
enum class Ordering {
  k_sorted,             // IDs issued further apart in real time than the bound sort in that order,
                        // across nodes; each stream strictly increases
  k_sorted_by_tick,     // as k_sorted between ticks, but IDs within one tick are in no order,
                        // even from one stream (random bits instead of a counter)
  monotone_per_stream,  // each caller's stream strictly increases; no promise across streams
  none,                 // no order (UUIDv4)
};

// How many node ids one process consumes.
enum class NodeIds {
  none,        // no node field
  one,         // the node id given
  per_thread,  // node, node+1, ... one per thread (thread-local)
};

// Which default matrices a variant runs in; the harness reads these and never a name.
struct MatrixDefaults {
  bool chaos = false;        // the full chaos matrix
  bool chaos_quick = false;  // the quick chaos matrix (./run.sh default suite)
  bool locality = true;      // the locality matrix
  // The chaos matrix's clock-sequence cells (chaos/matrix.hpp): the variant keeps a clock
  // sequence under that policy, in its own field (UUIDv1/v6) or a layout's gen bits.
  bool clock_sequence = false;
  bool clock_sequence_quick = false;  // ... in the quick matrix too
  // The locality matrix drives it at a live table's pace (bench/locality/matrix.hpp
  // kLivePaceRatePerMs, Poisson arrivals) instead of 50 IDs per ms: its key order depends on
  // the time between IDs at the scale of minutes (UUIDv1's time_low wraps every 429.5 s), and
  // the variant measured against it (UUIDv6) runs at the same pace.
  bool locality_live_pace = false;
};

// Everything the harness may know about a variant. `idbench list --json` exports it (every
// field below except `make`), and scripts read that JSON instead of scraping text.
struct Variant {
  std::string_view name;
  std::string_view summary;
  std::string_view family;  // "snowflake", "uuid", "counter"
  // The decision-table row it belongs to: "Snowflake", "UUIDv7", "DCE", ...; empty for
  // a baseline the table has no row for (the report gives it a row of its own). A variant with
  // `own_clock` is its row's real peer, shown apart from the row's own variants.
  std::string_view scheme;
  IdWidth width = IdWidth::bits64;
  Ordering ordering = Ordering::none;
  bool time_based = false;   // reads a clock, so takes a policy
  bool uses_layout = false;  // a 64-bit Snowflake-family layout
  NodeIds node_ids = NodeIds::none;
  IdTime id_time = IdTime::none;
  bool in_process_lower_bound = false;  // stands in for a system with a round trip per ID
  // A real library run in-process that reads the wall clock itself, through libc, and keeps
  // its own state (libuuid-v1): it ignores GeneratorOptions' clock, policy and high-water mark
  // and applies its own rule. libfaketime reaches it (chaos); a ManualClock does not.
  bool own_clock = false;
  MatrixDefaults defaults;
  std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make;
};

inline constexpr IdTime kIdTimes[] = {IdTime::none, IdTime::layout, IdTime::uuidv7, IdTime::uuid,
                                      IdTime::ulid, IdTime::ksuid,  IdTime::xid,
                                      IdTime::uuidv8};

// The Unix ms an ID carries, per `how`; nullopt for IdTime::none. `layout` is used only for
// IdTime::layout.
// Also nullopt when the ID carries no such time: a UUID whose version is not 7, a 64-bit
// layout ID with bits above 64 set, or a tick whose Unix ms is beyond int64.
std::optional<std::int64_t> unix_ms_of(IdTime how, const Id& id, const Layout& layout);
// unix_ms_of(IdTime::uuidv7, id, ...), inline for the bench's per-ID loop. RFC 9562 §5.7: the
// top 48 bits are Unix ms, the next 4 the version.
inline std::optional<std::int64_t> uuidv7_unix_ms(const Id& id) {
  if (((id.hi >> 12) & 0xF) != 7) return std::nullopt;
  return static_cast<std::int64_t>(id.hi >> 16);
}

// The words `idbench list --json`, `--id-time` and `--ordering` use for the enums above
// ("k_sorted", "per_thread", ...): one table each, read both ways (plumbing/enum_names.hpp).
inline constexpr std::array<plumbing::Named<IdTime>, std::size(kIdTimes)> kIdTimeNames = {{
    {IdTime::none, "none"},
    {IdTime::layout, "layout"},
    {IdTime::uuidv7, "uuidv7"},
    {IdTime::uuid, "uuid"},
    {IdTime::ulid, "ulid"},
    {IdTime::ksuid, "ksuid"},
    {IdTime::xid, "xid"},
    {IdTime::uuidv8, "uuidv8"},
}};
inline constexpr std::array<plumbing::Named<Ordering>, 4> kOrderingNames = {{
    {Ordering::k_sorted, "k_sorted"},
    {Ordering::k_sorted_by_tick, "k_sorted_by_tick"},
    {Ordering::monotone_per_stream, "monotone_per_stream"},
    {Ordering::none, "none"},
}};
inline constexpr std::array<plumbing::Named<NodeIds>, 3> kNodeIdsNames = {{
    {NodeIds::none, "none"},
    {NodeIds::one, "one"},
    {NodeIds::per_thread, "per_thread"},
}};
static_assert(plumbing::one_to_one(kIdTimeNames) && plumbing::one_to_one(kOrderingNames) &&
              plumbing::one_to_one(kNodeIdsNames));
static_assert(kOrderingNames.size() == static_cast<std::size_t>(Ordering::none) + 1);
static_assert(kNodeIdsNames.size() == static_cast<std::size_t>(NodeIds::per_thread) + 1);

std::string_view name_of(IdTime how);
std::string_view name_of(Ordering ordering);
std::string_view name_of(NodeIds node_ids);
// The inverse of name_of(IdTime), for `--id-time`; nullopt for an unknown name.
std::optional<IdTime> id_time_named(std::string_view name);

// The facts every Snowflake-family variant shares: 64-bit, k-sorted, reads a clock, takes a
// layout whose tick field carries its time, runs in the full chaos matrix. A variant adds its
// name, summary, how many node ids a process takes, whether it runs in the quick chaos matrix
// too, and its factory.
Variant snowflake_variant(std::string_view name, std::string_view summary, NodeIds node_ids,
                          bool chaos_quick,
                          std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make);

// The facts every time-based UUID variant shares: family "uuid", 128-bit, reads a clock (so
// takes a policy). A variant adds its name, summary, the order it promises, how its IDs carry
// time and its factory, and sets on the result whatever else is its own (scheme, node ids,
// matrix defaults).
Variant time_uuid_variant(std::string_view name, std::string_view summary, Ordering ordering,
                          IdTime id_time,
                          std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make);

// The facts both DCE UUIDs (v1, v6: generators/dce_uuid.hpp) add to those: scheme "DCE", one
// node id a process, time carried as RFC 9562's 100-ns count (IdTime::uuid), a clock sequence
// of their own (so the chaos matrix's clock-sequence cells), driven at a live table's pace in
// the locality matrix, outside the chaos matrix's policy cells. A version adds its name,
// summary, the order its field layout gives, whether its clock-sequence cells are in the quick
// matrix too, and its factory.
Variant dce_uuid_variant(std::string_view name, std::string_view summary, Ordering ordering,
                         bool clock_sequence_quick,
                         std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make);

std::span<const Variant> variants();
// Which of libuuid's paths uuid_generate_time takes on this host (uuidd, its clock state
// file, or the per-thread in-process fallback), found by probing what the library probes.
std::string libuuid_path();
// nullptr when there is no such variant.
const Variant* find_variant(std::string_view name);

// Wraps an IdGenerator type as a registry factory.
template <IdGenerator G>
std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> factory_of() {
  return [](const GeneratorOptions& opts) -> std::unique_ptr<Generator> {
    return std::make_unique<ErasedGenerator<G>>(opts);
  };
}

// A factory of a Snowflake variant `G<unit>`, instantiated for the layout's tick unit when it
// is 1 ms (every preset), so that its next() reads the clock with constants.
template <template <TickUnit> class G>
std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> factory_by_tick_unit() {
  return [](const GeneratorOptions& opts) -> std::unique_ptr<Generator> {
    if (opts.layout.unit_ms() == 1) {
      return std::make_unique<ErasedGenerator<G<TickUnit::one_ms>>>(opts);
    }
    return std::make_unique<ErasedGenerator<G<TickUnit::any>>>(opts);
  };
}

}  // namespace idbench
