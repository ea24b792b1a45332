// fault_check.hpp — fault verification: did each clock fault of a chaos run reach the program
// under test? A verdict is trusted only when it did.
//
// libfaketime fakes only what goes through the C library: a statically linked program, or a
// runtime reading the vDSO or the raw system call, never sees the faked clock, and a chaos run
// of it would report "kept" for a fault that never happened. So the analysis checks, per node
// and per clock fault the scenario played on that node, that the program's clock moved.
//
// The clock faults (from the driver's event log and the node's starting offset):
//   base       the node's clock starts away from true time (leap-second: 2016; skew: ±ms);
//              expected offset O = fake − true at the start;
//   step X     at true time t the clock jumps by X ms (NTP step, leap second: X < 0; a VM's
//              catch-up: X > 0); expected change of fake − true: X;
//   rate →r    at true time t the clock's rate becomes r (slew, smear); expected change of
//              fake − true by true time t + τ: (r − 1)·τ.
// A rate back to ×1 or a resume without a catch-up step changes nothing the IDs could show
// against the moment before; it only ends the window of the fault before it. Kill, restart and
// SIGSTOP are done to the process by the driver itself: nothing to verify.
//
// t is when the driver began writing the node's new setting (NodeFacts::clock_writes), and
// "landed" when it was done: a driver descheduled between two nodes' writes lands the later
// one tens of ms after the logged event, and the windows below start at the node's own write.
//
// Evidence, per stream (a node thread across its incarnations; each of its calls a Record):
//   d(ID) = time embedded in the ID − true time at which next() returned, in ms. Where a
//   built-in variant's IDs carry no time (id_time none) the stream is instead the node's probe:
//   every ms the node reads its own faked clock through libc (node.hpp) and d = faked − true.
//   The variant reads that same clock, and the report says the probe was the evidence
//   (FaultCheck::method). An external program (RunFacts::program) reads a clock of its own:
//   the probe would prove only that the fault reached its environment, so it is never used;
//   when no ID of the run carries a time, every fault is unverified ("the IDs carry no time").
//
//   A generator may hand out IDs from a batch fetched earlier (an external program answers
//   B = ids_per_request IDs per request): such an ID carries an older time, so its d is lower.
//   Any B consecutive IDs of one stream contain the first ID of a request, whose d is fresh,
//   so the *largest* d of n = max(B, kWindowIds) consecutive IDs is the stream's "leading
//   offset" L. Stale IDs only lower d; the maximum ignores them.
//
//   step or rate fault at t, window (t, end], end = the node's next clock fault or the stop:
//     L_before = L of the last n IDs with true time < t;
//     L_after  = L of the last n IDs with true time in (landed + kGraceMs, end], after skipping
//                the first B IDs after `landed` (they may come from a request made before);
//     E        = X (step), or (r − 1)·(mid-time of those last n IDs − t) (rate);
//     shown    when (L_after − L_before)·sign(E) ≥ kShownFraction·|E|.
//   A policy that holds a high-water mark (borrow, Python's uuid1) keeps issuing from the
//   pre-fault time: its embedded times stop advancing while true time does, so d falls by the
//   time elapsed, which at the window's end exceeds kShownFraction·|X| (every scenario's
//   window is longer than its step). A policy that refuses or waits shows a step back too:
//     refused  refusals because the clock was behind (clock_moved_backwards,
//              wait_bound_exceeded, borrow_limit_exceeded) in the window: the generator saw
//              the step back, whatever it issued later (a persisted mark carries a restarted
//              node ahead of its clock);
//     stalled  a call (or the thread at the stop) blocked from before landed + kGraceMs to
//              the window's end.
//   (both only for a step back; a clock that never went back gives neither).
//   Otherwise, with IDs on both sides, the stream did not show the fault; with too few IDs
//   it is undetermined.
//   base fault: L of the first n IDs; shown when |L − O| < |L| (closer to the faked clock
//   than to true time).
//
// Coarse embedded times (resolution R = RunFacts::id_time_resolution_ms: a KSUID's 1 s, a
// layout's unit): every window also spans at least R of true time, so that its maximum meets an
// ID issued just after the embedded time ticked, and a fault below 2R is below resolution.
// UUIDs described as carrying time whose version carries none (v4 under --id-time uuid) are
// IDs without time.
//
// Per node and fault: applied when some stream showed it and at least as many showed it as
// did not; not applied when more streams did not; unverified when no stream could tell.
// A fault whose |E| is below max(kMinVerifiableMs, 2R) (a slew at a tiny --time-scale, a 1 s
// step in KSUID seconds) cannot be resolved from the IDs: below_resolution, reported, not
// judged. For a program that is so only when a larger fault on the same node was applied (its
// clock is then shown to be the faked one); otherwise it is unverified.
//
// judge.hpp: any not_applied is "fault not applied" and the run fails; any unverified is
// "fault not verified" and fails too; neither is ever "kept".
//
// Thread safety: a pure function.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/enum_names.hpp"

namespace idbench::chaos {

struct RunFacts;
struct RunRecords;

// IDs per leading-offset window at least (ms truncation and a preempted call average out).
inline constexpr std::size_t kWindowIds = 8;
// After a fault's logged instant, the driver's write of the timestamp file still has to land.
inline constexpr double kGraceMs = 2;
// How much of the expected change must show.
inline constexpr double kShownFraction = 0.5;
// Below this |expected change| ms timestamps cannot resolve a fault.
inline constexpr double kMinVerifiableMs = 3;

enum class FaultOutcome { applied, not_applied, unverified, below_resolution };
// The outcome's word in a run's fault_check JSON ("applied", "not verified").
inline constexpr std::array<plumbing::Named<FaultOutcome>, 4> kFaultOutcomeNames = {{
    {FaultOutcome::applied, "applied"},
    {FaultOutcome::not_applied, "not applied"},
    {FaultOutcome::unverified, "not verified"},
    {FaultOutcome::below_resolution, "below resolution"},
}};
static_assert(plumbing::one_to_one(kFaultOutcomeNames));
static_assert(kFaultOutcomeNames.size() ==
              static_cast<std::size_t>(FaultOutcome::below_resolution) + 1);
std::string_view name_of(FaultOutcome o);

struct FaultVerification {
  int node = 0;
  std::int64_t at_true_ns = 0;
  std::string what;              // the event's line, or "clock base"
  std::string kind;              // base, step, rate
  double expected_ms = 0;        // E (base: O)
  std::optional<double> observed_ms;  // median over the streams that had IDs on both sides
  FaultOutcome outcome = FaultOutcome::unverified;
  std::string how;  // "IDs", "refused", "stalled", "probe", or why undetermined
};

struct FaultCheck {
  // "embedded ID times", the probe's label, or why there is no method.
  std::string method;
  std::vector<FaultVerification> faults;
  // Why no fault of the run could be judged at all ("the IDs carry no time"); empty otherwise.
  std::string unverifiable;
  bool any(FaultOutcome o) const;
};

inline constexpr const char* kIdTimesMethod = "embedded ID times follow the faked clock";
inline constexpr const char* kProbeMethod =
    "probe: the node process's faked clock, which the variant reads (its IDs carry no time)";
inline constexpr const char* kNoTimeMethod =
    "none: the program's IDs carry no time, and a probe of its environment is not the program";
inline constexpr const char* kNoTime = "the IDs carry no time";

// Verifies every clock fault of the run (see above). Pure.
FaultCheck check_faults(const RunFacts& facts, const RunRecords& records);

}  // namespace idbench::chaos
