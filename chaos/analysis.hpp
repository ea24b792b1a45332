// analysis.hpp — what a chaos run proves, computed from the records its nodes wrote.
//
// Across all streams of a run (one stream per node thread, its incarnations in order):
//   duplicates        IDs equal to an earlier one: counted by the shared checker
//                     (check/checker.hpp), then classified by where the two copies came
//                     from — one process, two lifetimes of one node, or two nodes;
//   order violations  per stream, by the same checker;
//   refusals          every call that threw a ClockError, by kind, with the first message;
//   availability      1 − (time a node could not issue because of its generator) / run time,
//                     averaged over nodes. "Could not issue": from a refused call until the
//                     next successful one, plus every call that blocked longer than
//                     kStallThresholdNs. Time a node was frozen (vm-pause) or dead (kill until
//                     restart) is reported as down time, not charged to the generator;
//   max stall         the longest such interval on any node;
//   k-sort bound      the largest true-time gap between two IDs whose ID order contradicts
//                     their true order (Twitter promised k-sorting within 1 s);
//   ID skew           time embedded in an ID minus the time it should carry (true time plus
//                     the scenario's base offset: 2016-12-31 for the leap second);
//   fault check       whether each clock fault reached the program (fault_check.hpp);
//   timeline          a down-sampled picture for reports: per node and bucket of true time,
//                     the range of embedded times; refused intervals; duplicates.
//
// Loading comes first (run_records.hpp reads the run directory); every figure above is then a
// pure pass over what was loaded: availability, duplicate classification, timeline and skew.
// The verdict built on these figures is in judge.hpp.
//
// Thread safety: `analyse(facts, records)` is a pure function; `analyse(facts)` also reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chaos/fault_check.hpp"
#include "chaos/interval.hpp"
#include "chaos/run_records.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"

namespace idbench::chaos {

// A call blocked this long is a stall. An ordinary call takes µs and a sequence overflow waits
// at most one 1 ms tick, but a thread preempted inside a call on a busy 2-core machine comes
// back after a scheduler slice (a few ms; flat-out runs oversubscribe the cores): 10 ms keeps
// that noise out while every wait a policy does for a step back (≥ 100 ms) counts in full.
inline constexpr std::int64_t kStallThresholdNs = 10'000'000;

// One process lifetime of a node, as the driver saw it.
struct IncarnationFacts {
  unsigned threads = 0;
  std::int64_t up_true_ns = 0;   // when it was told to go
  std::int64_t end_true_ns = 0;  // when it was killed, or the stop time
  bool killed = false;
};

struct NodeFacts {
  std::uint64_t node_id = 0;
  std::vector<IncarnationFacts> incarnations;
  std::vector<Interval> paused;      // SIGSTOP → SIGCONT, true ns
  std::vector<Interval> down;        // kill → the restarted process is told to go, true ns
  std::int64_t clock_offset_ns = 0;  // its faked clock − true time at the start (base, skew)
  // One per clock event played on this node (step, resume, set_rate; in event order): from
  // just before the driver wrote the node's new setting to just after. A driver descheduled
  // between two nodes' writes lands the later one late; the fault check reads these.
  std::vector<Interval> clock_writes{};
};

struct LoggedEvent {
  std::int64_t true_ns = 0;
  int node = -1;  // -1: every node
  std::string what;
  std::string kind;                     // step, set_rate, stop, resume, kill, restart
  std::optional<std::int64_t> step_ms;  // the clock step as played (time scale applied)
  std::optional<double> rate;           // set_rate: the new rate
};

// Everything the analyser needs besides the record files.
struct RunFacts {
  std::string run_dir;
  std::int64_t start_true_ns = 0;
  std::int64_t stop_true_ns = 0;
  // reference(t) = t + reference_offset_ns: the time an ID issued at true time t should
  // carry (0 except where the scenario moves every clock on purpose: leap second, epoch).
  std::int64_t reference_offset_ns = 0;
  std::vector<NodeFacts> nodes;
  std::vector<LoggedEvent> events;
  IdWidth width = IdWidth::bits64;
  IdTime id_time = IdTime::none;  // how an ID carries its time (the variant's description)
  std::optional<Layout> layout;   // decodes IdTime::layout IDs; nullopt for the others
  // An external program (--exec): its clock is its own, so only its IDs are evidence that a
  // fault reached it, never the node's probe (fault_check.hpp).
  bool program = false;
  // IDs a generator may hand out from one clock reading: an external program's request size
  // (its IDs come in batches), 1 for a built-in variant (fault_check.hpp).
  std::uint64_t ids_per_request = 1;
  // The resolution of the time an ID carries, ms: a layout's unit, 1 s for a KSUID, else 1.
  std::int64_t id_time_resolution_ms = 1;
};

// Which duplicates the configuration promises against (see `expectations_for`).
struct Promise {
  bool within_process = false;  // the policy promises uniqueness
  bool across_restart = false;  // ... and a persisted high-water mark carries it over restarts
  bool across_nodes = false;    // distinct node ids (or random bits) keep nodes apart
  // A program's instances of one node (one per thread, each its own node id) are kept apart as
  // nodes are: by a node id or random bits in its IDs.
  bool across_instances = false;
  bool no_wrap = true;   // never an ID from a wrapped timestamp
  bool program = false;  // an external program's promise (the words of text())
  std::string text() const;
};

struct DuplicateExample {
  std::string id;  // text form
  struct Place {
    int node = 0;
    int incarnation = 0;
    int thread = 0;
    double at_ms = 0;  // true time since the run started
  };
  std::vector<Place> places;
};

struct StreamFigures {
  std::string name;  // "node0/thread1"
  std::size_t ids = 0;
  std::size_t order_violations = 0;
};

// A restarted incarnation against the clock it came back to, when a clock step back was
// played between its previous incarnation's last ID and its first call: the evidence a restart
// under a regression needs (judge.hpp). Its clock is behind that last ID until
// `behind_until_true_ns` (the ID's true time plus the steps back played since).
struct RestartWindow {
  int incarnation = 0;
  // When its first call began (an ID, a refusal, or a call still blocked at its end); nullopt:
  // it made no call.
  std::optional<std::int64_t> first_call_true_ns;
  std::int64_t behind_until_true_ns = 0;
};

struct NodeFigures {
  int node = 0;
  std::uint64_t node_id = 0;
  std::vector<std::size_t> ids_per_incarnation;
  std::size_t refusals = 0;
  double refused_ms = 0;      // union of refused stretches
  double unavailable_ms = 0;  // refused ∪ stalled, minus paused and down
  double down_ms = 0;         // paused or dead
  double max_stall_ms = 0;
  // True times of the node's first and last ID (the evidence, judge.hpp); nullopt: none.
  std::optional<std::int64_t> first_id_true_ns;
  std::optional<std::int64_t> last_id_true_ns;
  std::vector<RestartWindow> restarts;  // one per restart under a regression
};

struct Timeline {
  struct Point {
    double x_ms;      // bucket centre, true ms since the run started
    double y_min_ms;  // embedded time − reference at run start, ms
    double y_max_ms;
    std::size_t ids;
  };
  std::vector<std::vector<Point>> nodes;                        // per node index
  std::vector<std::vector<std::pair<double, double>>> refused;  // per node: [from, to] ms
  std::vector<std::vector<std::pair<double, double>>> down;     // per node: [from, to] ms
  struct Mark {
    double x_ms;
    double y_ms;
    int node;
  };
  std::vector<Mark> duplicates;  // ≤ 200 later copies of duplicated IDs, evenly over time
  std::int64_t reference_start_unix_ms = 0;  // y = 0 means this UTC time
};

struct Analysis {
  std::size_t ids = 0;
  std::size_t duplicates = 0;
  std::size_t duplicates_within_process = 0;
  std::size_t duplicates_across_restart = 0;
  std::size_t duplicates_across_nodes = 0;
  // An external program: two of its instances in one node process (threads, each its own node
  // id). For a built-in variant, whose threads share the process's generator, always 0.
  std::size_t duplicates_across_instances = 0;
  std::vector<DuplicateExample> duplicate_examples;
  std::size_t order_violations = 0;
  std::vector<StreamFigures> streams;
  std::size_t refusals = 0;
  std::map<std::string, std::size_t> refusals_by_kind;
  std::map<std::string, std::string> refusal_messages;  // kind → first message seen
  std::int64_t refused_behind_max_ms = 0;  // the largest "N ms behind" a refusal reported
  double availability = 1.0;
  double max_stall_ms = 0;
  double ksort_bound_ms = 0;
  std::optional<double> id_skew_min_ms;  // nullopt when IDs carry no time
  std::optional<double> id_skew_max_ms;
  std::size_t wrapped_ids = 0;  // embedded time more than a day before the run began
  std::vector<NodeFigures> nodes;
  Timeline timeline;
  bool self_check_ok = true;  // the checker and the classifier agree on the duplicate count
  FaultCheck fault_check;
};

// Computes every figure above from the loaded records (no file access).
Analysis analyse(const RunFacts& facts, const RunRecords& records,
                 std::size_t timeline_buckets = 200);
// Loads the run's files (load_run_records), then analyses them.
Analysis analyse(const RunFacts& facts, std::size_t timeline_buckets = 200);

// The embedded time of an ID in Unix ms, or nullopt when the ID carries none.
std::optional<std::int64_t> embedded_unix_ms(const Id& id, const RunFacts& facts);

// The largest true-time gap between two IDs whose ID order contradicts their true order.
// `by_id` must be sorted by (id, true_ns); equal IDs are duplicates, not contradictions.
struct TimedId {
  Id id;
  std::int64_t true_ns = 0;
  std::uint16_t node = 0;
  std::uint16_t incarnation = 0;
  std::uint16_t thread = 0;
};
std::int64_t ksort_bound_ns(const std::vector<TimedId>& by_id);

}  // namespace idbench::chaos
