// matrix.hpp — the chaos matrix: every scenario × variant × policy, one run each, written to
// one JSON file that is always whole (rewritten through plumbing::OutputFile after every cell,
// `complete: false` until the last), with progress (cell i of N, what runs, time left) on a
// FILE*.
//
// Real systems' adapters join it as programs (MatrixProgram), one cell per scenario that steps
// a clock back.
//
// Three steps, each its own function: `plan_matrix` turns the configuration into cells (and
// rejects bad input before anything runs or is written), `run_matrix` runs them one by one,
// and matrix_json.hpp and matrix_progress.hpp render the JSON document and progress lines.
//
// Which variants run by default is the variants' own description (`Variant::defaults.chaos`,
// `.chaos_quick` in generators/registry.hpp): nothing here names a variant. Restarting
// scenarios run again with a persisted high-water mark, to show the fix beside the failure.
// `quick` halves every scenario's timeline, for the default suite.
//
// clock-sequence has cells of its own (when the policies include it, as by default): the
// variants whose description says `defaults.clock_sequence` (`.clock_sequence_quick`), over
// the scenarios whose clocks step back, with and without --persist; a Snowflake-family
// variant runs on kGenLayout (2 gen bits: 3 backward steps without waiting), and, on a
// scenario with more backward steps than that layout's one spare generation, once more on
// kGen1Layout: where the policy ends and falls back to waiting. The quick matrix keeps the
// scenarios that restart or step back more than once.
//
// Thread safety: runs cells one at a time from the calling thread (see driver.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "chaos/clock_injector.hpp"
#include "external/program.hpp"

namespace idbench::chaos {

// A program in the matrix beside the built-in variants: a real system's adapter (the command
// line resolves the system), run as `chaos --exec` runs one, with its own clock policy, at full
// length (a program that waits out a step shows it only in the whole window). It runs every
// chosen scenario that steps a clock back; the quick matrix keeps those that step back more
// than once and do not restart (a program's start-up may outlast a short regression, which is
// no evidence). Its verdicts are findings about it: recorded, never the matrix's failure.
struct MatrixProgram {
  std::string name;    // the system's name: the cells' variant, and their `system`
  std::string scheme;  // its decision-table row ("Snowflake"), for the report
  external::ExecSpec exec;
};

struct MatrixConfig {
  std::string out_path;
  bool quick = false;
  std::vector<std::string> scenarios;   // empty: every scenario
  std::vector<std::string> variants;    // empty: the variants' defaults
  std::vector<std::string> policies;    // empty: every policy
  std::vector<MatrixProgram> programs;  // none by default
  int nodes = 2;
  unsigned threads = 2;
  double rate = 40'000;
  // 0: full length (1.0), or when quick a quarter (0.25), restarts at half (a restart's
  // regression must outlast the restarted node's start); given: every built-in cell's. A
  // program's cells never run shorter than full length.
  double time_scale = 0;
  bool persist_restart = true;
  std::string node_binary;
  ClockInjector clock_injector = ClockInjector::libfaketime;
};

// Twitter's 41/10/12 with 2 (1) of its 10 machine bits as clock-sequence generations.
inline constexpr const char* kGenLayout = "ts=41,node=8,gen=2,seq=12,epoch=1288834974657";
inline constexpr const char* kGen1Layout = "ts=41,node=9,gen=1,seq=12,epoch=1288834974657";

struct MatrixCell {
  std::string scenario;
  std::string variant;
  std::string policy;
  std::string layout;        // empty: the run's default layout
  std::string layout_label;  // for progress lines, e.g. gen=2
  bool persist = false;
  std::int64_t duration_ms = 0;
  // A program's cell: its index in MatrixConfig::programs (its policy is its own).
  std::optional<std::size_t> program;
  double time_scale = 1.0;  // the scenario's timeline scaled by this; duration_ms is its length
};

struct MatrixPlan {
  MatrixConfig config;
  double time_scale = 1.0;  // of the cells without a restart or a program
  std::vector<std::string> scenarios, variants, policies;
  std::vector<MatrixCell> cells;
  std::int64_t planned_ms() const;
};

// The variants the matrix runs by default, from their descriptions.
std::vector<std::string> default_matrix_variants(bool quick);

// Validates the configuration (unknown names, rate, time scale, --out) and lists the cells.
// Throws idbench::Error with one line.
MatrixPlan plan_matrix(const MatrixConfig& config);

// Runs the plan. Returns the exit status: 0 when every cell passed (its promise kept, with
// evidence), 1 when one did not or could not run.
int run_matrix(const MatrixPlan& plan, std::FILE* progress);
inline int run_matrix(const MatrixConfig& config, std::FILE* progress) {
  return run_matrix(plan_matrix(config), progress);
}

}  // namespace idbench::chaos
