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
// in the source tree idbench was built from (or IDBENCH_COMMIT / IDBENCH_DIRTY when set,
// e.g. by a CI job building from a tarball).
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

}  // namespace idbench::plumbing
