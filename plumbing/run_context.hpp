// run_context.hpp — the one "context" block every idbench JSON result carries (bench.json,
// locality.json, chaos.json), so that a report never guesses where a number came from.
//
// Schema (every key always present; strings are "unknown" when not known):
//   {"idbench_version": 1,
//    "commit": "<40 hex>" | "unknown",  "dirty": true|false,   // decided once, here
//    "build_type": "Release", "compiler": "GNU 12.2.0", "sanitizers": "",
//    "host": "...", "os": "Linux 6.1...", "cpu_model": "...", "cpus": 2,
//    "started_utc": "2026-12-01T14:00:00Z", "load_avg_1m": 0.12,
//    "clock_source": "tsc"}
//
// The commit comes from `git rev-parse HEAD` and `git status --porcelain --untracked-files=no`
// in the source tree idbench was built from, asked at run time (a configure-time answer goes
// stale at the next commit; so would one baked in at build time when nothing is rebuilt).
// IDBENCH_COMMIT / IDBENCH_DIRTY override it when set, e.g. by a CI job building from a
// tarball. IDBENCH_DIRTY is a boolean: 1/true/yes or 0/false/no (any other non-empty value
// counts as dirty: unsure means dirty). The old spellings "<sha>-dirty" / "<sha>+dirty" in
// IDBENCH_COMMIT are read as the sha with dirty = true.
//
// Thread safety: current_run_context() is thread-safe (computed once).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace idbench::plumbing {

struct RunContext {
  std::string commit = "unknown";
  bool dirty = false;
  std::string build_type, compiler, sanitizers;
  std::string host, os, cpu_model;
  int cpus = 0;
  std::string started_utc;
  double load_avg_1m = 0;
  std::string clock_source;
};

const RunContext& current_run_context();
nlohmann::json to_json(const RunContext& c);

// The commit and dirty marker of `source_dir` (IDBENCH_COMMIT / IDBENCH_DIRTY first, as above);
// {"unknown", false} when neither the environment nor git can tell. current_run_context()
// asks this for the source tree idbench was built from. Exposed for tests.
struct CommitInfo {
  std::string commit = "unknown";
  bool dirty = false;
};
CommitInfo commit_of(const std::string& source_dir);

}  // namespace idbench::plumbing
