// layout.hpp — how a 64-bit time-ordered ID divides its bits. The one place that owns the
// bit arithmetic: every encoder, decoder, lifetime and cap in idbench comes from here.
//
// A layout is data: a spare bit (or not), a timestamp of `ts_bits` ticks of `unit_ms` since
// `epoch`, a node field (one part, or two such as Twitter's datacenter + worker) and a
// sequence. Fields are packed high to low as spare | ts | node | seq, except that a layout may
// put the node in the lowest bits (Sonyflake v2: ts | seq | machine).
//
//   Layout twitter = Layout::parse("twitter");
//   std::uint64_t id = twitter.encode({.tick = 5, .node = 1, .seq = 7});
//   twitter.decode(id).seq;                              // 7
//   twitter.last_unix_ms();                              // 2080-07-10T17:30:30.208Z
//   Layout::parse("ts=41,node=10,seq=12,unit=1ms,epoch=1288834974657");
//
// A spec string is `ts=BITS,node=BITS[+BITS],seq=BITS[,unit=Nms|Ns][,epoch=UNIX_MS]` plus two
// optional keys for what the presets need: `spare=0|1` (default 1) and `low=seq|node`
// (default seq), and `gen=BITS` (1..14; left out, none): a generation counter for the
// clock-sequence policy (policy.hpp), taken from the node field: it sits in the node field's top
// bits, so `ts=41,node=8,gen=2,seq=12` is Twitter's 10 machine bits as 2 generation + 8 node bits.
// Every gen bit halves the node space (1,024 → 256 nodes here) and buys twice the backward
// steps the policy survives without waiting (4 generations: 3 steps). Each key at most once. The
// unit is 1 ms to 1 s (default 1ms: a longer tick would stall a generator for that long on sequence
// overflow); the epoch is Unix ms from 0 to now (default 0); every tick's Unix ms must fit int64,
// so no arithmetic on a layout's fields overflows. Every invalid layout is a `LayoutError` whose
// code names the broken rule; a layout that exists is valid.
//
// Thread safety: immutable after construction; share freely.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace idbench {

// One part of the node field: Twitter splits its 10 machine bits into datacenter + worker.
struct NodePart {
  std::string name;
  int bits = 0;
};

// The decoded contents of an ID. `tick` counts `unit_ms` since the layout's epoch.
struct LayoutFields {
  std::int64_t tick = 0;
  std::uint64_t node = 0;
  std::uint64_t seq = 0;
  std::uint64_t gen = 0;  // the clock-sequence generation (gen bits), 0 without them
};

// Everything a layout is made of, before validation.
struct LayoutSpec {
  std::string name = "custom";
  bool spare_bit = true;
  int ts_bits = 0;
  std::vector<NodePart> node;
  int seq_bits = 0;
  int gen_bits = 0;  // taken from the node field: its top bits
  bool node_in_low_bits = false;
  std::int64_t unit_ms = 1;
  std::int64_t epoch_unix_ms = 0;
};

class Layout {
 public:
  // A preset name (`twitter`, `snowflake`, `discord`, `sonyflake`, `sonyflake-v1`, `baidu`,
  // `wide`) or a spec string. `now_unix_ms` is only used to reject an epoch in the future.
  static Layout parse(std::string_view preset_or_spec, std::int64_t now_unix_ms);
  // As above, checking the epoch against the real wall clock.
  static Layout parse(std::string_view preset_or_spec);
  // Validates `spec`; throws LayoutError naming the first rule it breaks.
  static Layout from_spec(LayoutSpec spec, std::int64_t now_unix_ms);

  struct Preset {
    std::string_view name;
    std::string_view spec;
    std::string_view summary;
  };
  static std::span<const Preset> presets();

  const std::string& name() const { return spec_.name; }
  // The canonical spec string; `Layout::parse(spec())` gives back an equal layout.
  std::string spec() const;

  bool spare_bit() const { return spec_.spare_bit; }
  int ts_bits() const { return spec_.ts_bits; }
  int node_bits() const;
  int seq_bits() const { return spec_.seq_bits; }
  int gen_bits() const { return spec_.gen_bits; }
  // Every field's bits: ts + gen + node + seq.
  int used_bits() const { return spec_.ts_bits + spec_.gen_bits + node_bits() + spec_.seq_bits; }
  const std::vector<NodePart>& node_parts() const { return spec_.node; }
  bool node_in_low_bits() const { return spec_.node_in_low_bits; }
  std::int64_t unit_ms() const { return spec_.unit_ms; }
  std::int64_t epoch_unix_ms() const { return spec_.epoch_unix_ms; }

  std::int64_t max_tick() const { return static_cast<std::int64_t>(mask(spec_.ts_bits)); }
  std::uint64_t max_node() const { return mask(node_bits()); }
  std::uint64_t max_seq() const { return mask(spec_.seq_bits); }
  std::uint64_t max_gen() const { return mask(spec_.gen_bits); }

  // Throws LayoutError(node_out_of_range) unless `node` fits the node field.
  void check_node(std::uint64_t node) const;

  // Precondition: 0 <= tick <= max_tick(), node <= max_node(), seq <= max_seq(),
  // gen <= max_gen().
  std::uint64_t encode(const LayoutFields& fields) const;
  LayoutFields decode(std::uint64_t id) const;

  // encode() with its shifts worked out once, for the generators' hot path: encode() sums the
  // node parts on every call. Same preconditions; pack(f) == encode(f) for every layout.
  struct Packer {
    int tick_shift = 0;
    int gen_shift = 0;
    int node_shift = 0;
    int seq_shift = 0;
    std::uint64_t pack(std::int64_t tick, std::uint64_t node, std::uint64_t seq,
                       std::uint64_t gen) const {
      return pack_node_part(tick, node_part(node), seq, gen);
    }
    // The node's bits in place, for a generator whose node is fixed: worked out once, then
    // or-ed into every ID by pack_node_part.
    std::uint64_t node_part(std::uint64_t node) const { return node << node_shift; }
    std::uint64_t pack_node_part(std::int64_t tick, std::uint64_t node_part, std::uint64_t seq,
                                 std::uint64_t gen) const {
      return static_cast<std::uint64_t>(tick) << tick_shift | gen << gen_shift | node_part |
             seq << seq_shift;
    }
  };
  Packer packer() const;
  // The node value split into its parts, highest part first.
  std::vector<std::uint64_t> split_node(std::uint64_t node) const;

  // Ticks since the epoch for a Unix time; floors, so it is negative before the epoch.
  std::int64_t tick_of_unix_ms(std::int64_t unix_ms) const;
  // Precondition: 0 <= tick <= max_tick() (every such tick's ms fits int64; from_spec checks).
  std::int64_t unix_ms_of_tick(std::int64_t tick) const;
  // Any tick: nullopt where tick × unit + epoch is beyond int64.
  std::optional<std::int64_t> checked_unix_ms_of_tick(std::int64_t tick) const;
  // The last Unix millisecond the layout can represent: its lifetime ends after it.
  std::int64_t last_unix_ms() const;
  // The format cap: IDs per second one node can issue, (max_seq + 1) per tick.
  double cap_per_second() const;

  bool operator==(const Layout& other) const { return spec() == other.spec(); }

 private:
  explicit Layout(LayoutSpec spec) : spec_(std::move(spec)) {}
  static std::uint64_t mask(int bits) {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }

  LayoutSpec spec_;
};

// ISO 8601 UTC with milliseconds, e.g. 2016-04-30T11:18:25.796Z.
std::string format_utc_ms(std::int64_t unix_ms);

}  // namespace idbench
