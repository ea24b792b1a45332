// high_water_mark.hpp — a persisted high-water mark: the one thing that keeps a restarted
// generator from re-issuing IDs while its wall clock is behind.
//
// A restart loses the in-memory "last tick" every policy relies on; after a kill -9 and a
// backward clock step, a fresh process issues the ticks its predecessor already used. The fix
// is the one Baidu and Leaf apply at start-up, made exact: before a generator issues from a
// time, that time is covered by a *reservation* stored durably on disk; a restarted generator
// starts from the stored mark (`GeneratorOptions::resume_after_unix_ms`), so its own policy
// refuses or waits until the clock passes it.
//
//   HighWaterMark mark("/var/lib/ids/node-3.hwm");
//   GeneratorOptions opts;
//   opts.resume_after_unix_ms = mark.load();          // nullopt on first start
//   opts.clock = std::make_shared<ReservingClock>(wall_clock(), mark,
//                                                 lookahead_ms(opts.policy), 1000,
//                                                 opts.resume_after_unix_ms);
//   auto gen = make_generator(variant.name, opts);           // every ID now covered by the mark
//
// Why a clock decorator rather than a change to the generators: every time-based generator
// issues from a tick no later than (its last clock reading + the policy's lookahead), so
// reserving ahead of every reading the generator takes covers every ID it can issue, for every
// variant and policy, without touching their code. The lookahead is 0 for every policy but
// `borrow`, which may run up to its bound ahead of the clock.
//
// Cost: one durable write (write, fsync, rename, fsync of the directory) per `reserve_ms` of
// clock time, made by whichever thread first reads the clock past the reservation; other
// threads read one atomic. The price at restart: up to `reserve_ms` (+ the backward step) of
// refusals or waiting, because the mark is ahead of the last ID really issued.
//
// Thread safety: `HighWaterMark` is thread-compatible; `ReservingClock` is thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "generators/clock.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"

namespace idbench::chaos {

// A mark file that cannot be read, parsed or made durable. A generator must not start from
// a corrupt mark: guessing could re-issue IDs, so this is an error, never a default.
class HighWaterMarkError : public Error {
 public:
  using Error::Error;
};

// A mark file holds at most this much: 19 digits and a newline, with room to spare.
inline constexpr std::size_t kMaxMarkFileBytes = 64;
// The last mark a Clock can reach: wall_ns() is int64 ns since 1970 (2262-04-11).
inline constexpr std::int64_t kMaxMarkUnixMs = INT64_MAX / 1'000'000;

// The mark in a file's `text`: one canonical decimal Unix ms (no sign, no leading zero, no
// CR) in 1 … kMaxMarkUnixMs, then an optional newline. Anything else throws
// HighWaterMarkError naming `path` and showing the bytes escaped (`shown`), never raw.
std::int64_t parse_mark(std::string_view text, const std::string& path);

// Bytes as a quoted, printable string: \r, \x00, ...; at most 40 shown, then "…".
std::string shown(std::string_view bytes);

// The bytes of a small state file (at most max_bytes + 1 are read, so an overlong file shows
// as such); nullopt when it does not exist. Throws HighWaterMarkError naming `path` when it
// cannot be opened or read.
std::optional<std::string> read_state_file(const std::string& path, std::size_t max_bytes);

// Where a node keeps its high-water mark in `persist_dir`: one file per node id.
std::string mark_path(const std::string& persist_dir, std::uint64_t node_id);

// One mark file: a single decimal Unix millisecond and a newline.
class HighWaterMark {
 public:
  // `slow_ms`: a planted slow disk (chaos tests), slept before each store.
  explicit HighWaterMark(std::string path, std::int64_t slow_ms = 0)
      : path_(std::move(path)), slow_ms_(slow_ms) {}

  // The stored mark; nullopt when the file does not exist. Throws HighWaterMarkError when it
  // exists but does not hold exactly one mark (parse_mark).
  std::optional<std::int64_t> load() const;

  // Makes `unix_ms` the stored mark before returning, through plumbing::write_file_atomically:
  // a temp file unique to this writer (two processes may share a mark), fsynced, renamed over
  // PATH, then the directory fsynced. Rename makes the swap atomic (a crash leaves the old or
  // the new mark, never half of one); the first fsync makes the new contents durable before
  // the rename can be, the second makes the rename itself durable.
  void store(std::int64_t unix_ms) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::int64_t slow_ms_ = 0;
};

// How far past its last clock reading a generator with `policy` may issue: the borrow bound
// for `borrow`, 0 for every other policy (they issue at the reading or at an earlier tick).
std::int64_t lookahead_ms(const Policy& policy);

// A Clock that never lets a reading out before the mark covers it: a reading `r` is returned
// only once the stored mark is >= r + lookahead. When it is not, the reading thread stores
// r + lookahead + reserve_ms (durably) first.
class ReservingClock final : public Clock {
 public:
  // `initial_mark`: the mark already stored (what `load()` returned), so a restart does not
  // rewrite a mark that already covers the clock.
  ReservingClock(std::shared_ptr<Clock> inner, HighWaterMark mark, std::int64_t lookahead_ms,
                 std::int64_t reserve_ms, std::optional<std::int64_t> initial_mark);

  std::int64_t wall_ns() const override;
  std::int64_t steady_ns() const override { return inner_->steady_ns(); }
  void relax() override { inner_->relax(); }

  // The mark stored last, and how many durable writes it took: for reports and tests.
  std::int64_t reserved_unix_ms() const { return reserved_.load(std::memory_order_acquire); }
  std::int64_t stores() const { return stores_.load(std::memory_order_relaxed); }

 private:
  const std::shared_ptr<Clock> inner_;
  const HighWaterMark mark_;
  const std::int64_t lookahead_ms_;
  const std::int64_t reserve_ms_;
  mutable std::mutex store_mu_;  // one durable write at a time
  // The durable mark. Written only under store_mu_ and only after store() returned: this
  // release pairs with the acquire in wall_ns(), so a thread that sees a mark also sees that
  // it is on disk (nothing else is published through it, but the order is the promise).
  mutable std::atomic<std::int64_t> reserved_;
  mutable std::atomic<std::int64_t> stores_{0};
};

}  // namespace idbench::chaos
