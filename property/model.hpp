// model.hpp — model-based (stateful) properties of the time-based generators over arbitrary
// clock histories, driven by a ManualClock.
//
// One property is one (variant, policy, restart mode). RapidCheck draws a configuration (a
// layout for the Snowflake variants, a node id, the policy's bound, the ManualClock's relax
// step and start time) and a sequence of commands:
//
//   Advance(t)   real time passes: t ticks (up to a few seconds) plus a sub-ms jitter
//   Stay         no time passes between two commands
//   StepBack(t)  the wall clock is stepped back 1 tick … a few seconds (an NTP step)
//   Generate(n)  n = 1 … 5000 calls to next(), stopping at the first refusal
//   Restart      a new generator instance replaces the old one (a process restart)
//
// The model is the policy written from its specification (policy.hpp): it predicts
// every ID's (tick, seq), every refusal and where the clock ends up after the generator has
// spun on it. Each Generate checks the generator against it, and checks on its own, call by
// call, what the policy promises:
//   * no duplicates for every policy but `unsafe`, by the DuplicateFinder over the whole
//     history; strictly increasing IDs (for uuidv7-random, whose IDs within a ms are random,
//     non-decreasing timestamps);
//   * refuse throws ClockMovedBackwards exactly when the clock is behind the last issued tick,
//     with that many ms; bounded-wait throws WaitBoundExceeded exactly when it is behind by
//     more than the bound, and otherwise waits; wait always waits;
//   * borrow never issues an ID whose tick is more than its bound ahead of the clock;
//   * unsafe is caught: the finder reports every duplicate the model predicts (Snowflake), the
//     order check every ID issued behind its predecessor, and a final forced step back of one
//     tick must produce a duplicate (Snowflake) or an order violation (UUIDv7).
//
// A restart loses the in-memory last tick, and an in-memory generator restarted while the
// clock is behind the highest tick ever issued legitimately re-issues IDs. So the
// two restart modes are the two ways a deployment avoids that:
//   from_mark          the new instance gets `resume_after_unix_ms` = the highest issued time,
//                      the persisted high-water mark;
//   after_clock_passes Restart is only generated while the clock is past every issued tick.
// In both, order holds across restarts too, and the properties assert it over the history.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <memory>
#include <string_view>

#include "generators/generator.hpp"
#include "generators/policy.hpp"

namespace idbench::property {

// from_stable_storage (clock-sequence only): the mark and the stored generations
// (GeneratorOptions::generation_store), the RFC's stable storage: a restart with the clock
// behind moves to the next generation at once.
enum class RestartMode { from_mark, after_clock_passes, from_stable_storage };

// Builds the generator under test, at the start and at every Restart. The properties use
// make_generator; a test hands in a generator with a planted defect to prove the property
// catches it (model_planted_test.cpp).
using GeneratorFactory =
    std::function<std::unique_ptr<Generator>(std::string_view variant, const GeneratorOptions&)>;

// One test case of the model-based property; call it inside a RapidCheck property.
void check_model(std::string_view variant, PolicyKind policy, RestartMode restart,
                 const GeneratorFactory& make = make_generator);

}  // namespace idbench::property

// One property: the model checks `variant` under PolicyKind::`policy`, restarting as
// RestartMode::`restart`. Every property below is one of these; only its name and the two
// enumerators differ.
#define IDBENCH_MODEL_PROPERTY_(Suite, Name, variant, policy, restart)           \
  RC_GTEST_PROP(Suite, Name, ()) {                                               \
    ::idbench::property::check_model(variant, ::idbench::PolicyKind::policy,     \
                                     ::idbench::property::RestartMode::restart); \
  }

// The policies every time-based variant shares, as one property each.
#define IDBENCH_MODEL_PROPERTIES_(Suite, variant, mode)                                            \
  IDBENCH_MODEL_PROPERTY_(Suite, Refuse_ThrowsExactlyWhenClockIsBehindLastTick, variant, refuse,   \
                          mode)                                                                    \
  IDBENCH_MODEL_PROPERTY_(Suite, Wait_BlocksUntilClockReachesLastTickNeverDuplicating, variant,    \
                          wait, mode)                                                              \
  IDBENCH_MODEL_PROPERTY_(Suite, BoundedWait_ThrowsBeyondItsBoundElseWaits, variant, bounded_wait, \
                          mode)                                                                    \
  IDBENCH_MODEL_PROPERTY_(Suite, Borrow_NeverRunsPastItsBoundAheadOfTheClock, variant, borrow, mode)

// Snowflake variants: `unsafe` reuses (tick, seq) after a step back, so it must be caught
// issuing a duplicate.
#define IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(Suite, variant, mode) \
  IDBENCH_MODEL_PROPERTIES_(Suite, variant, mode)                \
  IDBENCH_MODEL_PROPERTY_(Suite, Unsafe_IsCaughtDuplicatingAfterStepBack, variant, unsafe, mode)

// clock-sequence on a Snowflake layout with gen bits (model.cpp's kGenLayouts): the model
// predicts every ID's (tick, seq, generation), waits exactly when the generations inside the
// window are spent, no duplicates ever (the finder over the whole history), and a step back
// issues at the clock's time without waiting whenever a generation is free. Restarts: from
// the mark alone (the clock sequence starts random, so the model learns it from the first
// ID, and nothing at or below the mark is free), or from stable storage (the generations go
// on where they were). A restart with neither is the RFC's random clock sequence, unique
// only by chance, so it is not a property (README).
#define IDBENCH_CLOCK_SEQUENCE_MODEL_PROPERTIES(Suite, variant)                                   \
  IDBENCH_MODEL_PROPERTY_(Suite, ClockSequence_RestartFromStableStorage_NeverDuplicates, variant, \
                          clock_sequence, from_stable_storage)                                    \
  IDBENCH_MODEL_PROPERTY_(Suite, ClockSequence_RestartFromTheMarkAlone_NeverDuplicates, variant,  \
                          clock_sequence, from_mark)

// UUIDv7 variants: after a step back `unsafe` reissues an old millisecond, but with fresh
// random bits (a random counter seed, or 74 random bits), so a duplicate has a probability
// around 2^-41 per ID and a test waiting for one would never see it. What it is caught doing
// instead is issuing IDs out of order: an ID below the one before it.
#define IDBENCH_UUIDV7_MODEL_PROPERTIES(Suite, variant, mode)                                    \
  IDBENCH_MODEL_PROPERTIES_(Suite, variant, mode)                                                \
  IDBENCH_MODEL_PROPERTY_(Suite, Unsafe_IsCaughtIssuingOutOfOrderAfterStepBack, variant, unsafe, \
                          mode)
