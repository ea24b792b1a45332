// key_stream.cpp — the keys of a locality run: a variant on a simulated clock, or synthetic.
#include "bench/locality/key_stream.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <new>
#include <random>

#include "bench/locality/keys_file.hpp"
#include "generators/clock.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"

namespace idbench::locality {

std::string_view name_of(Arrival a) { return plumbing::name_in(kArrivalNames, a); }
std::string_view name_of(Synthetic s) { return plumbing::name_in(kSyntheticNames, s); }
std::string_view name_of(KeyType k) { return plumbing::name_in(kKeyTypeNames, k); }
KeyType default_key_type(IdWidth width) {
  return width == IdWidth::bits128 ? KeyType::binary16 : KeyType::bigint;
}
int key_bytes(KeyType k) { return k == KeyType::binary16 ? 16 : 8; }

namespace {

// splitmix64: a tiny, fully specified generator, so "random arrival, seed 1" is the same
// order with every standard library (std::shuffle's algorithm is not specified).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return (*this)() % n; }  // bias < 2^-40 for our n
};

const Variant& variant_named(const std::string& name) {
  const Variant* variant = find_variant(name);
  if (variant == nullptr) {
    std::string names;
    for (const auto& v : variants())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", v.name);
    throw Error(fmt::format("unknown variant '{}'; one of: {}", name, names));
  }
  return *variant;
}

// The writers' generators on one manual clock. Clock readers are per writer (node id = writer
// index); counters and random UUIDs model one shared service.
std::vector<std::unique_ptr<Generator>> make_writers(const Variant& variant, const StreamSpec& spec,
                                                     const Layout& layout,
                                                     std::shared_ptr<ManualClock> clock) {
  GeneratorOptions opts;
  opts.layout = layout;
  opts.clock = std::move(clock);
  const std::uint64_t instances = variant.time_based ? spec.writers : 1;
  std::vector<std::unique_ptr<Generator>> gens;
  for (std::uint64_t w = 0; w < instances; ++w) {
    opts.node = w;
    if (variant.uses_layout) opts.layout.check_node(w);
    gens.push_back(variant.make(opts));
  }
  return gens;
}

// The simulated ms at whose start ID number `n` (from 0) arrives: floor(n / rate). Exact for
// a whole rate (n and rate are integers well below 2^53), so such a rate puts exactly `rate`
// IDs in every ms; a fractional one spreads them, e.g. 0.01: one ID every 100 ms.
std::uint64_t arrival_ms(std::uint64_t n, double rate) {
  return static_cast<std::uint64_t>(std::floor(static_cast<double>(n) / rate));
}

// Which writer issues each of the `count` IDs of the `busy`-th tick that has any (ticks
// without an ID are skipped, so writers take turns at any rate), in arrival order: each
// writer's share (the remainder rotates so no writer is favoured), taken in rounds, shuffled
// when random.
void tick_order(const StreamSpec& spec, std::uint64_t busy, std::uint64_t count, SplitMix64& rng,
                std::vector<std::uint64_t>& share, std::vector<std::uint64_t>& order) {
  const std::uint64_t writers = spec.writers;
  for (std::uint64_t w = 0; w < writers; ++w) {
    share[w] = count / writers + (((w + writers - busy % writers) % writers) < count % writers);
  }
  order.clear();
  for (std::uint64_t round = 0;; ++round) {
    bool any = false;
    for (std::uint64_t w = 0; w < writers; ++w) {
      if (round < share[w]) {
        order.push_back(w);
        any = true;
      }
    }
    if (!any) break;
  }
  if (spec.arrival == Arrival::random) {
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  }
}

// The IDs, tick by tick: every ID arriving in one simulated ms is issued at its start.
void issue_ids(const StreamSpec& spec, std::int64_t start_ms, ManualClock& clock,
               const std::vector<std::unique_ptr<Generator>>& gens, std::vector<Id>& keys) {
  SplitMix64 rng{spec.seed};
  std::vector<std::uint64_t> order;
  std::vector<std::uint64_t> share(spec.writers);
  for (std::uint64_t n = 0, busy = 0; keys.size() < spec.rows; ++busy) {
    const std::uint64_t ms = arrival_ms(n, spec.rate);
    std::uint64_t count = 1;  // the whole tick's, not cut at `rows`: the order stays the same
    while (arrival_ms(n + count, spec.rate) == ms) ++count;
    n += count;
    // Advance to the start of this tick, never backwards: a generator that spun past it
    // (relax() lets simulated time pass) has already moved the clock on.
    const std::int64_t target = (start_ms + static_cast<std::int64_t>(ms)) * 1'000'000;
    if (clock.wall_ns() < target) clock.advance_ns(target - clock.wall_ns());
    tick_order(spec, busy, count, rng, share, order);
    for (std::uint64_t w : order) {
      if (keys.size() == spec.rows) break;
      keys.push_back(gens[gens.size() == 1 ? 0 : w]->next());
    }
  }
}

// Poisson arrival: ID n + 1 comes an exponential gap (mean 1 / rate ms, drawn by inversion from
// the stream's seeded generator, to the ns) after ID n; ID n is issued by writer n mod W.
void issue_poisson(const StreamSpec& spec, std::int64_t start_ms, ManualClock& clock,
                   const std::vector<std::unique_ptr<Generator>>& gens, std::vector<Id>& keys) {
  SplitMix64 rng{spec.seed};
  const double mean_ns = 1e6 / spec.rate;
  // The mean span is at most kMaxSimulatedMs (check_rate); a sum of exponentials beyond twice
  // that is astronomically rare, but int64 ns must never be reached.
  const double limit_ns = 2 * kMaxSimulatedMs * 1e6;
  double t_ns = 0;
  for (std::uint64_t n = 0; keys.size() < spec.rows; ++n) {
    if (t_ns > limit_ns) throw Error("--arrival poisson ran past 200 simulated years");
    const std::int64_t target = start_ms * 1'000'000 + static_cast<std::int64_t>(t_ns);
    if (clock.wall_ns() < target) clock.advance_ns(target - clock.wall_ns());
    keys.push_back(gens[gens.size() == 1 ? 0 : n % spec.writers]->next());
    const double u = (static_cast<double>(rng() >> 11) + 1) * 0x1p-53;  // (0, 1]
    t_ns += -std::log(u) * mean_ns;
  }
}

KeyStream from_variant(const StreamSpec& spec) {
  const Variant& variant = spec.described ? *spec.described : variant_named(spec.variant);
  if (spec.writers == 0) throw Error("--writers must be at least 1");
  const Layout layout = Layout::parse(spec.layout);
  const std::int64_t start_ms =
      variant.uses_layout ? stream_start_unix_ms(layout, spec.start_unix_ms) : spec.start_unix_ms;
  auto clock = std::make_shared<ManualClock>(start_ms * 1'000'000);
  const auto gens = make_writers(variant, spec, layout, clock);
  KeyStream out;
  out.width = variant.width;
  out.keys.reserve(spec.rows);
  if (spec.arrival == Arrival::poisson) {
    issue_poisson(spec, start_ms, *clock, gens, out.keys);
  } else {
    issue_ids(spec, start_ms, *clock, gens, out.keys);
  }
  if (spec.node_major) {
    if (!variant.uses_layout) throw Error("--node-major needs a variant that takes a layout");
    for (Id& id : out.keys) id = Id::from_u64(to_node_major(layout, id.lo));
  }
  const std::int64_t elapsed_ms = clock->wall_ms() - start_ms + 1;
  out.simulated_ms = static_cast<std::uint64_t>(std::max<std::int64_t>(elapsed_ms, 1));
  out.achieved_rate = static_cast<double>(out.keys.size()) / static_cast<double>(out.simulated_ms);
  out.description = fmt::format("{}{}{}, {} writer{}, {}/ms, {}", spec.variant,
                                variant.uses_layout ? " (" + spec.layout + ")" : "",
                                spec.node_major ? " node-major" : "", spec.writers,
                                spec.writers == 1 ? "" : "s", spec.rate, name_of(spec.arrival));
  return out;
}

KeyStream from_synthetic(const StreamSpec& spec) {
  KeyStream out;
  out.width = IdWidth::bits64;
  out.keys.reserve(spec.rows);
  if (spec.synthetic == Synthetic::sequential) {
    for (std::uint64_t i = 1; i <= spec.rows; ++i) out.keys.push_back(Id::from_u64(i));
    out.description = "sequential bigint";
  } else {
    SplitMix64 rng{spec.seed};
    // 63 bits: the value stays positive in engines whose BIGINT is signed (SQLite, PostgreSQL).
    for (std::uint64_t i = 0; i < spec.rows; ++i) out.keys.push_back(Id::from_u64(rng() >> 1));
    out.description = "uniform random bigint";
  }
  return out;
}

}  // namespace

std::uint64_t to_node_major(const Layout& layout, std::uint64_t id) {
  const LayoutFields f = layout.decode(id);
  const int low = layout.ts_bits() + layout.seq_bits();
  return f.node << low | static_cast<std::uint64_t>(f.tick) << layout.seq_bits() | f.seq;
}

std::int64_t stream_start_unix_ms(const Layout& layout, std::int64_t preferred) {
  if (preferred > layout.last_unix_ms()) {
    throw EpochExhausted(fmt::format(
        "the layout's lifetime ended at {}, before the simulated stream's start {}: it issues "
        "no IDs today",
        format_utc_ms(layout.last_unix_ms()), format_utc_ms(preferred)));
  }
  return std::max(preferred, layout.epoch_unix_ms());
}

void check_rows(std::uint64_t rows, const char* flag) {
  if (rows == 0) throw Error(fmt::format("{} must be ≥ 1", flag));
  if (rows > kMaxRows) {
    throw Error(fmt::format("{} must be at most {} (the keys are held in memory)", flag, kMaxRows));
  }
}

void check_rate(double rate, std::uint64_t rows) {
  // Written so that NaN fails too.
  if (!(rate >= kMinRatePerMs && rate <= kMaxRatePerMs)) {
    throw Error(fmt::format("--rate must be {:g} … {:g} IDs per simulated ms (0.01 = 10 IDs/s), "
                            "not {}",
                            kMinRatePerMs, kMaxRatePerMs, rate));
  }
  if (static_cast<double>(rows) / rate > kMaxSimulatedMs) {
    throw Error(fmt::format("--rows / --rate spans {:.0f} years of simulated time; at most {:.0f}: "
                            "use a higher --rate or fewer --rows",
                            static_cast<double>(rows) / rate / (365.25 * 86'400'000.0),
                            kMaxSimulatedMs / (365.25 * 86'400'000.0)));
  }
}

KeyStream build_stream(const StreamSpec& spec) {
  const int sources =
      !spec.variant.empty() + (spec.synthetic != Synthetic::none) + !spec.keys_file.empty();
  if (sources != 1) throw Error("give exactly one of --variant, --synthetic, --keys");
  check_rows(spec.rows, "--rows");
  check_rate(spec.rate, spec.rows);
  try {
    if (!spec.keys_file.empty()) return read_keys_file(spec.keys_file, spec.rows);
    if (spec.synthetic != Synthetic::none) return from_synthetic(spec);
    return from_variant(spec);
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("not enough memory for {} keys: use fewer --rows", spec.rows));
  }
}

}  // namespace idbench::locality
