// snowflake.hpp — what the three Snowflake variants (mutex, cas, thread-local) share: the
// layout, node and policy they were built with, and the SequenceSpace their state lives in.
// They differ only in where the (tick, seq) state lives and how it is synchronised.
//
// Thread safety: immutable after construction.
#pragma once

#include <memory>
#include <string>

#include "generators/generator.hpp"
#include "generators/sequencer.hpp"

namespace idbench {

// The state space of a layout: ticks of its unit since its epoch, seq up to its width.
SequenceSpace space_of(const Layout& layout);

// Throws HighWaterMarkError unless `mark_unix_ms` is a time an ID of `space` can carry and a
// Clock can reach: from the epoch (and after 0) to the end of the lifetime (and before 2262).
void check_mark(std::int64_t mark_unix_ms, const SequenceSpace& space);

// The state a generator starts from: none, or the persisted high-water mark's tick with its
// sequence used up, so the first ID comes from a later tick. Checks the mark (check_mark).
// Under clock-sequence, its generations are those stored for `node` (opts.generation_store),
// or a random clock sequence; a stored state whose highest tick is beyond the mark moves the
// starting tick there.
TickState initial_state(const GeneratorOptions& opts, const SequenceSpace& space,
                        std::uint64_t node);
// The generations a generator starts with (see initial_state); `resumed_tick` is the mark's
// tick, or TickState::kNoTick.
Generations initial_generations(const GeneratorOptions& opts, const SequenceSpace& space,
                                std::uint64_t node, std::int64_t resumed_tick);
// Makes `after` durable for `node` before an ID of it is returned, when it is a new
// generation or lap (not merely a higher tick). Throws what the store throws.
// Inline, since every ID of every variant with a (tick, seq) state in memory passes here: with
// no store (every policy but clock-sequence with --persist) it returns at once, without a call.
// The out-of-line call gets copies, made only when it is called: the caller's state must not
// have its address taken, or the compiler keeps it in memory and copies it through the stack
// on every ID (a store-forwarding stall: ~4 ns per ID, measured with perf annotate).
void store_new_generation(GenerationStore& store, std::uint64_t node, Generations before,
                          Generations after);
inline void store_if_new_generation(GenerationStore* store, std::uint64_t node,
                                    const Generations& before, const Generations& after) {
  if (store != nullptr) store_new_generation(*store, node, before, after);
}

struct SnowflakeConfig {
  explicit SnowflakeConfig(const GeneratorOptions& opts);

  std::uint64_t encode(const TickState& s, std::uint64_t node) const {
    return packer.pack(s.tick, node, s.seq, s.gens.gen);
  }
  // The same with the node's bits in place: `node_part` is packer.node_part(node), worked out
  // once per node (the variants' per-ID path).
  std::uint64_t encode_node_part(const TickState& s, std::uint64_t node_part) const {
    return packer.pack_node_part(s.tick, node_part, s.seq, s.gens.gen);
  }
  std::string format() const;

  Layout layout;
  Layout::Packer packer;
  Policy policy;
  std::shared_ptr<GenerationStore> generation_store;
  std::uint64_t node;
  std::uint64_t node_part;  // packer.node_part(node)
  std::shared_ptr<Clock> clock;
  SequenceSpace space;
  TickState initial;
};

}  // namespace idbench
