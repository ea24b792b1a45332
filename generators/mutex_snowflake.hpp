// mutex_snowflake.hpp — the mutex Snowflake: Twitter's algorithm (2010) behind one lock, with
// the clock read before the lock (the `mutex` variant) or under it (Twitter's own shape, the
// bench's reference: reference.hpp). Only where the clock is read differs (locked_sequencer.hpp).
//
// Thread safety: thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "generators/locked_sequencer.hpp"
#include "generators/snowflake.hpp"

namespace idbench {

template <ClockRead kRead, TickUnit kUnit = TickUnit::any>
class MutexSnowflake {
 public:
  using id_type = std::uint64_t;
  explicit MutexSnowflake(const GeneratorOptions& opts)
      : cfg_(opts), core_(cfg_.space, cfg_.initial, opts) {}

  std::uint64_t next() {
    return cfg_.encode_node_part(core_.next([] { return std::uint64_t{0}; }), cfg_.node_part);
  }
  std::string format() const {
    return cfg_.format() + (kRead == ClockRead::under_lock ? " (clock read under the lock)" : "");
  }

 private:
  const SnowflakeConfig cfg_;
  LockedSequencer<kRead, kUnit> core_;
};

}  // namespace idbench
