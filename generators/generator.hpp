// generator.hpp — the one interface every ID generator satisfies, and its type-erased form.
//
// A generator is any type with
//   using id_type = std::uint64_t or Uuid;
//   id_type next();                       // thread-safe; throws a ClockError on refusal
//   std::string format() const;           // its bit layout or UUID format, for a person
// Variants are small classes that satisfy `IdGenerator`; the harness (CLI, bench, locality,
// chaos) only ever sees `Generator`, the erased form, built from the registry by name:
//
//   auto gen = make_generator("cas", {.layout = Layout::parse("twitter"), .node = 3});
//   Id id = gen->next();
//
// Thread safety: every registered generator's `next()` may be called from many threads.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "generators/clock.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/policy.hpp"
#include "generators/sequencer.hpp"

namespace idbench {

template <class G>
concept IdGenerator = requires(G& g, const G& cg) {
  typename G::id_type;
  requires std::same_as<typename G::id_type, std::uint64_t> ||
      std::same_as<typename G::id_type, Uuid>;
  { g.next() } -> std::same_as<typename G::id_type>;
  { cg.format() } -> std::convertible_to<std::string>;
};

// Durable storage of clock-sequence generations, one record per node id (chaos/
// clock_sequence_store.hpp keeps them in files). Implementations must be thread-safe.
class GenerationStore {
 public:
  virtual ~GenerationStore() = default;
  virtual std::optional<Generations> load(std::uint64_t node) = 0;
  // Durable before it returns.
  virtual void store(std::uint64_t node, const Generations& gens) = 0;
};

// How to build a generator. Variants ignore what does not apply to them (a counter has no
// layout, a UUID no node id).
struct GeneratorOptions {
  // The preset is fixed data, so its epoch is not checked against a clock: under a faked
  // clock in the past, building default options must not throw.
  Layout layout = Layout::parse("twitter", std::numeric_limits<std::int64_t>::max());
  Policy policy{};
  // Node id (Snowflake family). Thread-local uses node, node+1, ... for its threads.
  std::uint64_t node = 0;
  std::shared_ptr<Clock> clock = wall_clock();
  // A persisted high-water mark: the generator starts as if it had issued the last ID of the
  // tick holding this Unix ms, so its policy applies until the clock passes it.
  std::optional<std::int64_t> resume_after_unix_ms;
  // clock-sequence's stable storage (RFC 9562 §6.3: the clock sequence and last timestamp):
  // a generator starts from the generations stored for its node id and stores new ones before
  // it returns an ID of a new generation. null: the clock sequence starts random (§6.1) and,
  // when resuming from a mark, every tick up to the mark counts as issued under every
  // generation.
  std::shared_ptr<GenerationStore> generation_store;
  // UUIDv1/v6: the 48-bit node; nullopt: 47 random bits with the multicast bit set (§6.10).
  std::optional<std::uint64_t> uuid_node;
};

// The erased interface the harness uses.
class Generator {
 public:
  virtual ~Generator() = default;
  virtual Id next() = 0;
  virtual IdWidth width() const = 0;
  virtual std::string format() const = 0;
  // The variant's registry name.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
};

template <IdGenerator G>
class ErasedGenerator final : public Generator {
 public:
  template <class... Args>
  explicit ErasedGenerator(Args&&... args) : impl_(std::forward<Args>(args)...) {}

  Id next() override {
    if constexpr (std::same_as<typename G::id_type, Uuid>) {
      return Id::from_uuid(impl_.next());
    } else {
      return Id::from_u64(impl_.next());
    }
  }
  IdWidth width() const override {
    return std::same_as<typename G::id_type, Uuid> ? IdWidth::bits128 : IdWidth::bits64;
  }
  std::string format() const override { return impl_.format(); }

 private:
  G impl_;
};

// Builds a registry variant by name; throws idbench::Error naming the variants if unknown.
std::unique_ptr<Generator> make_generator(std::string_view variant, const GeneratorOptions& opts);

}  // namespace idbench
