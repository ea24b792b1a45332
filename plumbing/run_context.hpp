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
// The commit is the one the binary was built from: every build asks `git rev-parse HEAD` and
// `git status --porcelain --untracked-files=no` in the source tree and compiles the answer
// into the programs that write results (build_commit.cmake; rewritten only when it changes, so
// an unchanged commit rebuilds nothing). Asked at run time instead, a binary kept from an old
// build, or run where GIT_DIR names another repository, would report a commit it was not built
// from. `dirty` says that tracked files differed from the commit when it was built. A program
// without the build's answer (a test) reports "unknown".
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

struct CommitInfo {
  std::string commit = "unknown";
  bool dirty = false;
};
// What the build compiled: defined by the file build_commit.cmake writes, linked into idbench,
// idbench-bench and idbench-icount (target idbench_build_commit); {"unknown", false} elsewhere.
CommitInfo built_commit();
// `built` with IDBENCH_COMMIT / IDBENCH_DIRTY applied (as above). current_run_context() asks
// this of built_commit(). Exposed for tests.
CommitInfo commit_of(CommitInfo built);

}  // namespace idbench::plumbing
