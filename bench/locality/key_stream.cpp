#include "bench/locality/key_stream.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <memory>
#include <random>

#include "generators/clock.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"

namespace idbench::locality {

std::string to_string(Arrival a) { return a == Arrival::random ? "random" : "round-robin"; }
std::string to_string(KeyType k) { return k == KeyType::binary16 ? "binary16" : "bigint"; }
std::string to_string(Synthetic s) {
  switch (s) {
    case Synthetic::sequential:
      return "sequential";
    case Synthetic::random:
      return "random";
    case Synthetic::none:
      break;
  }
  return "none";
}
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

KeyStream from_variant(const StreamSpec& spec) {
  const Variant* variant = find_variant(spec.variant);
  if (variant == nullptr) {
    std::string names;
    for (const auto& v : variants())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", v.name);
    throw Error(fmt::format("unknown variant '{}'; one of: {}", spec.variant, names));
  }
  if (spec.writers == 0 || spec.rate == 0) throw Error("--writers and --rate must be at least 1");
  auto clock = std::make_shared<ManualClock>(spec.start_unix_ms * 1'000'000);
  GeneratorOptions opts;
  opts.layout = Layout::parse(spec.layout);
  opts.clock = clock;
  // Clock readers are per writer; counters and random UUIDs model one shared service.
  const std::uint64_t instances = variant->time_based ? spec.writers : 1;
  std::vector<std::unique_ptr<Generator>> gens;
  for (std::uint64_t w = 0; w < instances; ++w) {
    opts.node = w;
    if (variant->uses_layout) opts.layout.check_node(w);
    gens.push_back(make_generator(spec.variant, opts));
  }
  KeyStream out;
  out.width = variant->width;
  out.keys.reserve(spec.rows);
  SplitMix64 rng{spec.seed};
  std::vector<std::uint64_t> order;
  std::vector<std::uint64_t> share(spec.writers);
  std::uint64_t tick = 0;
  while (out.keys.size() < spec.rows) {
    // Advance to the start of this tick, never backwards: a generator that spun past it
    // (relax() lets simulated time pass) has already moved the clock on.
    const std::int64_t target = (spec.start_unix_ms + static_cast<std::int64_t>(tick)) * 1'000'000;
    if (clock->wall_ns() < target) clock->advance_ns(target - clock->wall_ns());
    // Each writer's share of this tick; the remainder rotates so no writer is favoured.
    for (std::uint64_t w = 0; w < spec.writers; ++w) {
      share[w] =
          spec.rate / spec.writers +
          (((w + spec.writers - tick % spec.writers) % spec.writers) < spec.rate % spec.writers);
    }
    order.clear();
    for (std::uint64_t round = 0;; ++round) {
      bool any = false;
      for (std::uint64_t w = 0; w < spec.writers; ++w) {
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
    for (std::uint64_t w : order) {
      if (out.keys.size() == spec.rows) break;
      out.keys.push_back(gens[instances == 1 ? 0 : w]->next());
    }
    ++tick;
  }
  const std::int64_t elapsed_ms = clock->wall_ms() - spec.start_unix_ms + 1;
  out.simulated_ms = static_cast<std::uint64_t>(std::max<std::int64_t>(elapsed_ms, 1));
  out.achieved_rate = static_cast<double>(out.keys.size()) / static_cast<double>(out.simulated_ms);
  out.description = fmt::format("{}{}, {} writer{}, {}/ms, {}", spec.variant,
                                variant->uses_layout ? " (" + spec.layout + ")" : "", spec.writers,
                                spec.writers == 1 ? "" : "s", spec.rate, to_string(spec.arrival));
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

KeyStream from_file(const StreamSpec& spec) {
  std::ifstream in(spec.keys_file);
  if (!in) throw Error(fmt::format("cannot read {}", spec.keys_file));
  KeyStream out;
  out.description = "keys from " + spec.keys_file;
  std::string line;
  std::uint64_t number = 0;
  bool decided = false;
  while (std::getline(in, line)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    const bool looks_uuid = line.size() == 32 || line.size() == 36;
    if (!decided) {
      out.width = looks_uuid ? IdWidth::bits128 : IdWidth::bits64;
      decided = true;
    }
    if (out.width == IdWidth::bits128) {
      auto u = Uuid::parse(line);
      if (!u) throw Error(fmt::format("{}:{}: not a UUID: '{}'", spec.keys_file, number, line));
      out.keys.push_back(Id::from_uuid(*u));
    } else {
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
      if (ec != std::errc() || end != line.data() + line.size()) {
        throw Error(
            fmt::format("{}:{}: not a decimal 64-bit key: '{}'", spec.keys_file, number, line));
      }
      out.keys.push_back(Id::from_u64(v));
    }
    if (out.keys.size() == spec.rows) break;
  }
  if (out.keys.empty()) throw Error(fmt::format("{}: no keys", spec.keys_file));
  return out;
}

}  // namespace

KeyStream build_stream(const StreamSpec& spec) {
  const int sources =
      !spec.variant.empty() + (spec.synthetic != Synthetic::none) + !spec.keys_file.empty();
  if (sources != 1) throw Error("give exactly one of --variant, --synthetic, --keys");
  if (spec.rows == 0) throw Error("--rows must be at least 1");
  if (!spec.keys_file.empty()) return from_file(spec);
  if (spec.synthetic != Synthetic::none) return from_synthetic(spec);
  return from_variant(spec);
}

}  // namespace idbench::locality
