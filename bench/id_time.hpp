// id_time.hpp — the readers the bench's loops use to take the time out of each ID, picked by
// `with_time_of` from the run's IdModel (summary.hpp), i.e. from the variant's description.
//
//   NoIdTime      IDs that carry no time (counters, UUIDv4, baselines)
//   LayoutTickOf  a 64-bit layout ID's tick (the format cap counts ticks)
//   UuidV7MsOf    a UUIDv7's Unix ms, inline (uuidv7_unix_ms, registry.hpp)
//   UnixMsOf      any other time-carrying ID's Unix ms, through unix_ms_of() (registry.hpp)
//
// Each returns an optional: nullopt for an ID that carries no time after all, which the loops
// leave out of the span.
//
// Thread safety: plain values; every reader is const.
#pragma once

#include <cstdint>
#include <optional>

#include "bench/cap.hpp"
#include "bench/summary.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"

namespace idbench::bench {

struct NoIdTime {
  static constexpr bool kHasTime = false;
  std::optional<std::int64_t> operator()(const Id&) const { return std::nullopt; }
};
// The tick of a 64-bit layout ID (the format cap counts ticks).
struct LayoutTickOf {
  static constexpr bool kHasTime = true;
  int shift = 0;
  std::optional<std::int64_t> operator()(const Id& id) const {
    return static_cast<std::int64_t>(id.lo >> shift);
  }
};
// A UUIDv7's Unix ms, inline (UnixMsOf's call and switch cost ~5 ns per ID, charged to the
// variant: perf).
struct UuidV7MsOf {
  static constexpr bool kHasTime = true;
  std::optional<std::int64_t> operator()(const Id& id) const { return uuidv7_unix_ms(id); }
};
// The Unix ms of any other ID that carries its time, as its description says (unix_ms_of).
struct UnixMsOf {
  static constexpr bool kHasTime = true;
  IdTime how = IdTime::none;
  const Layout* layout = nullptr;
  std::optional<std::int64_t> operator()(const Id& id) const {
    return unix_ms_of(how, id, *layout);
  }
};

// Calls `fn` with the time reader that fits `model`.
template <class Fn>
decltype(auto) with_time_of(const IdModel& model, Fn&& fn) {
  if (model.id_time == IdTime::none || !model.layout) return fn(NoIdTime{});
  if (model.id_time == IdTime::layout) return fn(LayoutTickOf{tick_shift(*model.layout)});
  if (model.id_time == IdTime::uuidv7) return fn(UuidV7MsOf{});
  return fn(UnixMsOf{model.id_time, &*model.layout});
}

}  // namespace idbench::bench
