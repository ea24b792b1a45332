// key_stream.hpp — the keys of a locality run, in arrival order.
//
// Three sources:
//   * a registry variant (or one given by description: an `--exec` program) driven by one
//     ManualClock at `rate` IDs per simulated ms in total, shared by `writers` writers (see
//     "Rate" below). Variants that read a clock get one generator per writer
//     (node id = writer index), as W application servers each run their own library. Variants
//     that do not (database counters, random UUIDs) get one shared generator: they stand for a
//     central service, and W private counters would each hand out 1, 2, 3... — duplicates, not a
//     workload. Within each ms tick the writers take turns `round-robin` or in a seeded
//     `random` order; a writer's own IDs keep the order it issued them in. `poisson` instead
//     spaces every ID from the last by a seeded exponential gap (mean 1 / rate ms, to the ns),
//     as independent requests arrive, and the writers take turns.
//   * a synthetic stream the validation needs and no generator is: `sequential` (1, 2, 3 …)
//     or `random` (uniform 63-bit, seeded) BIGINTs.
//   * a file: one key per line, decimal for 64-bit keys, 32 hex digits or a canonical UUID
//     for 128-bit keys.
//
// Rate: IDs per simulated ms, all writers together, and it may be a fraction. ID number n
// (from 0) arrives at the start of simulated ms floor(n / rate): at 50, fifty IDs share each
// ms (the generators issue them back to back, spinning where their clock needs to move on);
// at 0.01, one ID every 100 ms — 10 IDs per second, a live service's pace, so 100,000 rows
// span 2.8 hours of generator time. How far apart IDs are in time decides the key order of a
// generator whose first field is not its high time bits: UUIDv1's time_low (the low 32 bits
// of a 100-ns count) wraps every 2^32 × 100 ns = 429.5 s, so a stream that spans one wrap
// ascends and one that spans many interleaves one ascending run per wrap. The rate is the
// only knob: no variant is treated apart. At such rates use `poisson` arrival: evenly spaced
// IDs land on a lattice of time_low values that every wrap shifts by the same amount, so all
// pages fill and split in lockstep and the leaf fill swings with the row count (UUIDv1 at
// 0.01/ms, key-only: 67 % at 100,000 rows, 81 % at 1,000,000), an artefact of the metronome;
// jittered arrivals scatter as requests do.
//
// Bounds: rows at least 1 and at most kMaxRows (the keys are held in memory); rate from
// kMinRatePerMs (one ID per 1,000 s) to kMaxRatePerMs (one tick's arrival order is held in
// memory), and rows / rate at most kMaxSimulatedMs (the simulated clock, int64 ns from 2025,
// must stay far from its end in 2262). Beyond any, build_stream throws idbench::Error naming
// the bound (check_rate).
//
// Determinism: the clock starts at a fixed instant and random arrival uses its own seeded
// generator, so a stream from a counter or Snowflake variant is the same on every run. UUID
// bits come from the kernel CSPRNG (generators/random.hpp) and differ between runs; the
// validation feeds one materialised stream to every engine, so they all see the same keys.
//
// Thread safety: build_stream is reentrant.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench::locality {

enum class Arrival { round_robin, random, poisson };
enum class Synthetic { none, sequential, random };
enum class KeyType { bigint, binary16 };
// The words the flags take (--arrival, --synthetic, --key-type) and the results carry.
inline constexpr std::array<plumbing::Named<Arrival>, 3> kArrivalNames = {{
    {Arrival::round_robin, "round-robin"},
    {Arrival::random, "random"},
    {Arrival::poisson, "poisson"},
}};
inline constexpr std::array<plumbing::Named<Synthetic>, 3> kSyntheticNames = {{
    {Synthetic::none, "none"},
    {Synthetic::sequential, "sequential"},
    {Synthetic::random, "random"},
}};
inline constexpr std::array<plumbing::Named<KeyType>, 2> kKeyTypeNames = {{
    {KeyType::bigint, "bigint"},
    {KeyType::binary16, "binary16"},
}};
static_assert(plumbing::one_to_one(kArrivalNames) && plumbing::one_to_one(kSyntheticNames) &&
              plumbing::one_to_one(kKeyTypeNames));
std::string_view name_of(Arrival a);
std::string_view name_of(Synthetic s);
std::string_view name_of(KeyType k);

inline constexpr std::int64_t kDefaultStartUnixMs = 1'748'736'000'000;
inline constexpr std::uint64_t kMaxRows = 100'000'000;
inline constexpr double kMaxRatePerMs = 10'000'000;
inline constexpr double kMinRatePerMs = 0.000'001;  // one ID per 1,000 s of simulated time
// 100 years of 365.25 days: the stream's simulated span (rows / rate ms) at most.
inline constexpr double kMaxSimulatedMs = 100 * 365.25 * 86'400'000.0;

struct StreamSpec {
  std::string variant;  // a registry name, or empty
  // A generator given by its description instead of by name (an `--exec` program, which reads
  // its own clock, not the simulated one); `variant` is then only its label for people.
  std::optional<Variant> described;
  Synthetic synthetic = Synthetic::none;
  std::string keys_file;  // or a file of keys
  std::string layout = "twitter";
  std::uint64_t rows = 1'000'000;
  double rate = 50;  // IDs per simulated ms, all writers together; 0.01 = 10 IDs/s (see above)
  std::uint64_t writers = 1;
  Arrival arrival = Arrival::round_robin;
  std::uint64_t seed = 1;
  // The clock's preferred start: 2025-06-01T00:00:00Z, fixed so runs repeat. A layout whose
  // lifetime does not hold it starts at its own epoch instead (stream_start_unix_ms).
  std::int64_t start_unix_ms = kDefaultStartUnixMs;
  // Node-major keys: the same IDs with the node field moved above the timestamp
  // (spare | node | ts | seq), so each writer appends at its own insert point and global time
  // order is lost. Only for variants that take a layout. A re-packing of the stream for
  // locality, not a generator layout: such IDs are not k-sorted, which every layout variant's
  // description promises.
  bool node_major = false;
};

// The node-major form of a time-major layout ID (see StreamSpec::node_major).
std::uint64_t to_node_major(const Layout& layout, std::uint64_t id);

struct KeyStream {
  IdWidth width = IdWidth::bits64;
  std::vector<Id> keys;
  std::string description;   // for a person: "uuidv7-random, 1 writer, 50/ms, round-robin"
  double achieved_rate = 0;  // IDs per simulated ms; below `rate` when a layout caps it
  std::uint64_t simulated_ms = 0;
};

// Throws idbench::Error with a message for a person on a bad spec or a malformed file (the
// message names the line).
KeyStream build_stream(const StreamSpec& spec);

// Where a variant's simulated clock starts for a layout: `preferred` when the layout's
// lifetime holds it, else the layout's epoch (a layout whose epoch is later, such as `wide`).
// Throws idbench::EpochExhausted (a refusal, exit 3) when the lifetime ended before
// `preferred`: such a layout issues nothing today, so its stream would describe nothing real.
std::int64_t stream_start_unix_ms(const Layout& layout, std::int64_t preferred);

// Throws idbench::Error unless 1 ≤ rows ≤ kMaxRows; `flag` names the option in the message.
void check_rows(std::uint64_t rows, const char* flag);
// Throws idbench::Error (one line naming --rate and its bounds) unless kMinRatePerMs ≤ rate ≤
// kMaxRatePerMs (so not NaN) and rows / rate ≤ kMaxSimulatedMs.
void check_rate(double rate, std::uint64_t rows);

// The key type a stream uses unless told: BIGINT for 64-bit IDs, BINARY(16) for UUIDs.
KeyType default_key_type(IdWidth width);
// Bytes of the key column in InnoDB (8 or 16).
int key_bytes(KeyType k);

}  // namespace idbench::locality
