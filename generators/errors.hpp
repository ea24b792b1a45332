// errors.hpp — the errors a generator or a layout reports, each its own type. Their base,
// idbench::Error, and one_line() are plumbing's (plumbing/error.hpp).
//
// Generators throw rather than return codes because Twitter's Snowflake does ("Clock moved
// backwards. Refusing to generate id for N milliseconds") and because every caller — CLI,
// bench, chaos node — must count a refusal, never mistake it for an ID.
#pragma once

#include <cstdint>
#include <string>

#include "plumbing/error.hpp"

namespace idbench {

// A layout (preset or spec string) that cannot be used. `code` names the rule it breaks.
class LayoutError : public Error {
 public:
  enum class Code {
    malformed_spec,         // not key=value, a missing or unknown key, a number that is none
    unknown_preset,         // a bare name that is no preset
    repeated_key,           // a key given twice
    too_many_bits,          // the fields need more than 64 bits (63 beside the spare bit)
    zero_width_field,       // a field of 0 bits
    unit_out_of_range,      // a unit outside 1 ms .. 1 s
    negative_epoch,         // an epoch before 1970
    epoch_in_future,        // an epoch after now
    lifetime_beyond_int64,  // the last tick's Unix ms does not fit int64
    node_out_of_range,      // a node id the node field cannot hold
    gen_too_wide,           // more gen bits than kMaxGenBits
  };
  LayoutError(Code code, const std::string& message) : Error(message), code_(code) {}
  Code code() const { return code_; }

 private:
  Code code_;
};

// A persisted high-water mark (GeneratorOptions::resume_after_unix_ms) no ID of the layout
// could carry: before its epoch, 0 or negative, past its lifetime or the clock's range. Bad
// input, found when the generator is built.
class HighWaterMarkError : public Error {
 public:
  using Error::Error;
};

// Base of the refusals a clock-regression policy produces at run time.
class ClockError : public Error {
 public:
  using Error::Error;
};

// `refuse`: the clock is behind the last issued tick.
class ClockMovedBackwards : public ClockError {
 public:
  explicit ClockMovedBackwards(std::int64_t behind_ms);
  std::int64_t behind_ms() const { return behind_ms_; }

 private:
  std::int64_t behind_ms_;
};

// `bounded-wait`: the clock did not catch up within the bound.
class WaitBoundExceeded : public ClockError {
 public:
  WaitBoundExceeded(std::int64_t behind_ms, std::int64_t bound_ms);
  std::int64_t behind_ms() const { return behind_ms_; }

 private:
  std::int64_t behind_ms_;
};

// `borrow`: issuing would run further ahead of the clock than the bound allows.
class BorrowLimitExceeded : public ClockError {
 public:
  BorrowLimitExceeded(std::int64_t ahead_ms, std::int64_t bound_ms);
  std::int64_t ahead_ms() const { return ahead_ms_; }

 private:
  std::int64_t ahead_ms_;
};

// The clock is outside the layout's representable range: before its epoch, or past its
// lifetime. Never wrapped: a wrapped timestamp re-issues IDs from decades ago.
class EpochExhausted : public ClockError {
 public:
  using ClockError::ClockError;
};

// A node id the layout cannot hold, or a per-thread slot beyond the node range.
class NodeError : public Error {
 public:
  using Error::Error;
};

}  // namespace idbench
