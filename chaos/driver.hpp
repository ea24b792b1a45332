// driver.hpp — one chaos run: K node processes under libfaketime, a scenario played on their
// clocks, then the analysis and the verdict.
//
//   RunConfig cfg{.scenario = "ntp-step-back", .variant = variants().front().name, .policy = "refuse"};
//   RunResult r = run_chaos(cfg, stderr);       // progress lines go to the FILE* (or nullptr)
//   r.verdict.passed();                          // false: a duplicate the policy promised against
//
// Node k gets node id k·T (T threads), so the thread-local variant's ids node..node+T−1 never
// overlap between nodes; the worker-collision scenario gives nodes 0 and 1 the same id. Every
// node runs the same variant, policy and layout. The run directory (records, timestamp files,
// node stderr) is a fresh temp directory removed afterwards, unless `keep_dir` names one.
//
// Thread safety: run_chaos forks; call it from one thread at a time, from a thread that
// outlives the run (PR_SET_PDEATHSIG is tied to the forking thread).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "chaos/analysis.hpp"
#include "chaos/clock_injector.hpp"
#include "chaos/judge.hpp"
#include "external/program.hpp"
#include "generators/errors.hpp"

namespace idbench::chaos {

// The scenario cannot be played with this variant (epoch-exhaustion with a variant whose
// timestamp never ends, or ends beyond what idbench's Clock can express). The matrix records
// such a cell as skipped, with this message.
class NotApplicable : public Error {
 public:
  using Error::Error;
};

// A slower pace issues too few IDs to see anything in a run of seconds; a faster one is beyond
// any generator under libfaketime (~300 k calls/s a thread): flat out (0) says it honestly.
inline constexpr double kMinRate = 1;
inline constexpr double kMaxRate = 10'000'000;
// Below 0.05 a scenario's steps shrink to a few ms and its timeline to tens of ms, less than
// a node's start-up; above 100 the default matrix would take a day.
inline constexpr double kMinTimeScale = 0.05;
inline constexpr double kMaxTimeScale = 100;

struct RunConfig {
  std::string scenario;
  std::string variant;
  std::string policy = "refuse";
  std::string layout = "twitter";
  int nodes = 2;
  unsigned threads = 2;
  // IDs per second per node; 0 = flat out. 40 k/s keeps four libfaketime'd threads (each
  // clock read ~3 µs: the library re-reads the timestamp file on every call) well inside two
  // cores while a 2 s run still issues 160 k IDs.
  double rate = 40'000;     // 0, or kMinRate … kMaxRate
  double time_scale = 1.0;  // scaled(scenario, time_scale); kMinTimeScale … kMaxTimeScale
  std::string persist_dir;  // empty: no high-water mark
  std::int64_t reserve_ms = 1000;
  // A planted slow disk (tests): every durable write of a mark takes this much longer.
  std::int64_t slow_store_ms = 0;
  std::string node_binary;  // empty: idbench-chaos-node beside this executable
  std::string keep_dir;     // keep the run's files here instead of a removed temp directory
  // An external program in place of `variant` (which is then only the run's label): every
  // node thread runs its own instance under the node's faked clock (node.hpp). Its
  // description (exec_variant) stands in for the variant's; no --persist (the high-water mark
  // is a clock inside idbench), no epoch-exhaustion (its lifetime cannot be probed); `policy`
  // is only a label (the program has its own) and the verdict holds it to unique IDs, across
  // its restarts too.
  std::optional<external::ExecSpec> exec;
  // How the nodes' faked clocks reach their processes (clock_injector.hpp).
  ClockInjector clock_injector = ClockInjector::libfaketime;
};

struct RunResult {
  RunConfig config;
  std::string scenario_summary;
  std::int64_t duration_ms = 0;
  std::vector<std::uint64_t> node_ids;
  std::optional<std::int64_t> lifetime_last_unix_ms;  // epoch-exhaustion only
  std::vector<LoggedEvent> events;
  std::int64_t start_true_ns = 0;
  double wall_seconds = 0;  // the whole run, set-up and analysis included (monotonic)
  Analysis analysis;
  JudgeSetup judged_on;  // what the verdict depends on besides the analysis
  fault::Verdict verdict;
};

// Throws idbench::Error for a bad configuration or a node that fails; Interrupted on a signal.
RunResult run_chaos(const RunConfig& config, std::FILE* progress);

// The instant the variant's lifetime ends (its last representable Unix ms), found by probing
// it on a manual clock: the driver never needs to know the format. nullopt when it does not
// end before the last instant idbench's Clock can express — int64 ns since 1970, i.e.
// 2262-04-11T23:47:16.854Z — as for counters, random UUIDs and UUIDv7 (48-bit ms: 10889).
std::optional<std::int64_t> probe_lifetime_last_ms(const std::string& variant,
                                                   const std::string& layout,
                                                   const std::string& policy);

// What is wrong with a rate or time scale that is not a finite number in its range (NaN, inf,
// 1e300, 1e-9), in a few words ("must be …, not nan"); empty when it is fine. The command
// line checks its flags with these.
std::string rate_problem(double rate);
std::string time_scale_problem(double time_scale);
// Throws idbench::Error with one line naming the flag and the problem. run_chaos and the
// matrix plan call it first.
void check_rate_and_scale(double rate, double time_scale);

}  // namespace idbench::chaos
