// real_run.hpp — the real-system bench over a plan: systems (or one --exec program) × durability
// settings × client counts × request sizes. A system's servers start once per setting, its
// cells run one at a time, and the caller sees the record after every cell (to write it).
//
//   RunPlan plan;  plan.targets = targets_for("quick");  plan.progress = &std::cerr;
//   RunRecord rec;
//   run_plan(plan, rec, [&](const RunRecord& r) { write_json(r); });
//
// The harness's own hop comes first (plan.hop): the same client counts and request sizes
// through the MariaDB adapter's null scheme (no system), the cost of the pipe round trip that
// every cell's end-to-end figure carries. With plan.direct, the direct client (direct.hpp) runs
// on the same servers for half the window just before each MariaDB cell and half just after
// it, for reference.
//
// A system without servers (python-*, node-*) runs once, with no durability setting. A server
// that does not start, or a program that fails, is that cell's error; the run goes on (a
// system whose servers did not start records each of its cells with that error). A signal
// ends the run with plumbing::Interrupted; the record keeps what was measured.
//
// Thread safety: thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "bench/real/real_locality.hpp"
#include "bench/real/round_trips.hpp"
#include "external/program.hpp"
#include "real/systems.hpp"

namespace idbench::realbench {

struct Target {
  std::string name;                          // the system's name, or "exec"
  const real::RealSystem* system = nullptr;  // nullptr: a raw --exec program
  external::ExecSpec exec;                   // the program when system is nullptr
};

struct RunPlan {
  std::vector<Target> targets;
  std::vector<int> clients{1, 8};
  std::vector<std::uint64_t> requests{1, 1000};
  // The durability settings, each system's servers run once per value of their kind's:
  std::vector<int> flush{1, 2};                       // MariaDB: innodb_flush_log_at_trx_commit
  bool binlog = false;                                // MariaDB: log_bin with sync_binlog=1
  std::vector<std::string> synchronous_commit{"on"};  // PostgreSQL: synchronous_commit
  std::vector<real::RedisPersistence> redis_persistence{
      real::RedisPersistence::aof_always, real::RedisPersistence::aof_everysec,
      real::RedisPersistence::rdb};  // Redis: the append-only file's fsync, or RDB only
  std::int64_t warmup_ns = 500'000'000;
  std::int64_t duration_ns = 2'000'000'000;
  // The locality pass (real_locality.hpp): per target, `locality_rows` IDs from each client
  // count of `locality_clients`, one ID per request, while the servers of its last durability
  // setting are up (the IDs do not depend on durability; the last setting is the cheapest by
  // default, flush 2). 0 rows: no pass.
  std::uint64_t locality_rows = 0;
  std::vector<int> locality_clients{1, 8};
  double locality_max_seconds = 60;  // per pass: collecting stops there (the figures say so)
  std::ostream* progress = nullptr;  // one line per cell: what, i/N, elapsed, time left
  bool hop = false;                  // measure the harness's hop first (null_adapter_spec())
  bool direct = false;               // the direct client around every MariaDB cell
};

struct CellRecord {
  std::string system;                           // the target's name
  const real::RealSystem* description = nullptr;  // nullptr for --exec
  std::string command;                          // the program as the system runs it
  std::optional<real::ServerSettings> settings;  // systems with servers (their kind's part)
  std::string server;  // RunningSystem::describe() of server 0; empty without servers
  CellFigures figures;
  std::optional<CellFigures> direct;  // the direct client's, with plan.direct on MariaDB
};

// One locality pass: a target's IDs from some clients, through the InnoDB model.
struct LocalityRecord {
  std::string system;
  const real::RealSystem* description = nullptr;  // nullptr for --exec
  std::optional<real::ServerSettings> settings;
  LocalityFigures figures;
};

struct RunRecord {
  std::vector<CellRecord> cells;
  std::vector<CellRecord> hop;  // the harness's own hop, one per (clients, request size)
  std::vector<LocalityRecord> locality;
  std::size_t planned = 0;
  bool complete = false;  // every planned cell ran (with or without an error)
  bool missing_tool = false;            // a system's servers did not start: they are not installed
  std::size_t errors() const;           // cells (of systems, of the hop, direct) with an error
  std::size_t locality_errors() const;  // locality passes with an error
};

// The targets of a --system argument, comma-separated words: "quick" (every system in the
// quick pass), "all", or a system's name; each system once, in registry order within a word.
// Throws Error naming the known systems for any other word.
std::vector<Target> targets_for(const std::string& systems);

std::size_t planned_cells(const RunPlan& plan);

// Throws Error for a plan that cannot run; plumbing::Interrupted after a signal.
void run_plan(const RunPlan& plan, RunRecord& record,
              const std::function<void(const RunRecord&)>& on_cell);

}  // namespace idbench::realbench
