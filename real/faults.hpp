// faults.hpp — faults played on the real systems: project-started mariadbd
// servers, client node processes (idbench-real-client in a fault::Fleet, faults_clients.hpp),
// each asking its adapter (external::Program) for one ID per round trip, one fault each, every
// ID kept with the true time it was issued, and a verdict that rests on evidence.
//
//   FaultRun run = run_fault_scenario("ticket-restore", {.progress = stderr});
//   run.verdict.passed();        // false: DUPLICATES, "duplicates issued: 812 ..."
//   nlohmann::ordered_json j = to_json(run);   // faults_json.cpp: what the report draws
//
// The scenarios (fault_scenarios() lists them with one line each):
//   ticket-restore            a ticket server's data directory is restored from a copy taken
//                             earlier: its counter goes back (the ticket server's NTP step);
//                             the duplicates it issues must be caught, and the verdict fails
//                             (server 0 of Flickr's MyISAM pair; the one-row InnoDB UPDATE);
//   ticket-server-down        one server of the ticket pair is killed with -9 and restarted
//                             later: availability, and how far the two streams drift apart
//                             (the pair on MyISAM and on InnoDB);
//   auto-increment-kill9      kill -9 and restart of mariadbd under AUTO_INCREMENT load, per
//                             innodb_flush_log_at_trx_commit × innodb_autoinc_lock_mode: is a
//                             value handed out twice?
//   postgres-kill9, postgres-restore, postgres-clock-back, redis-kill9: the same faults on
//                             PostgreSQL's schemes and Redis INCR;
//   redis-kill9-disk-busy     kill -9 of redis-server while its background AOF fsync is held
//                             (FsyncStallNemesis, fsync_stall_nemesis.hpp), as on a busy disk;
//   postgres-standby-promotion, redis-replica-promotion
//                             the replication link cut (LinkPartitionNemesis,
//                             link_partition.hpp), the master killed, the replica promoted;
//   uuid-clock-back           mariadbd's wall clock stepped back while it serves UUID() and
//                             UUID_SHORT(): under libfaketime (the server started under it), or,
//                             with --clock-injector ptrace, the RUNNING server attached by
//                             idbench-inject once its clients issue, and detached at the end;
//   uuid-short-restart-behind mariadbd restarted while its clock is behind: UUID_SHORT() takes
//                             its high bits from the server's start second.
//
// Faults: every fault a scenario plays is a fault::Nemesis step (fault/nemesis.hpp), played on
// the part's fault::Timeline and recorded there once: a server's kill -9 and its restart
// through crash recovery (ServerCrashNemesis, server_nemesis.hpp), a data directory's snapshot
// and its restore (SnapshotNemesis, snapshot_nemesis.hpp), the servers' faked wall clock
// stepped (ServerClockNemesis, server_clock_nemesis.hpp), a server's background fsync held
// (FsyncStallNemesis) and a replication link cut (LinkPartitionNemesis). What the harness does
// or sees around a fault (a server that answers again; servers stopped to be restarted behind)
// is recorded beside the steps with kind "harness". A part's events (FaultRecords::events) are
// both, in order: the lines and instants the report draws.
//
// Time: every ID carries the true CLOCK_REALTIME and CLOCK_MONOTONIC instants of its reply,
// read by raw system calls (plumbing/raw_time.hpp) in the client process right after the
// reply, so libfaketime never sees them and the harness adds no hop to them. A faked
// server clock is only its CLOCK_REALTIME (DONT_FAKE_MONOTONIC=1; the ptrace page never moves
// MONOTONIC): an NTP step never moves CLOCK_MONOTONIC either. The clock is the
// ServerClockNemesis's (server_clock_nemesis.hpp), faked by FaultOptions::clock_injector. That
// the fault reached the server is shown by a probe, the server's own SYSDATE(6) against true
// time (with the server's pid: a restart shows), and by the IDs' embedded times where they
// carry any; a run whose probe did not move is "fault not applied" and fails.
//
// Evidence: a fault is played only once every client has issued FaultOptions::issuing_ids IDs,
// and the phase after a recovery lasts until each has issued that many more; a part whose
// clients the machine starves is played again, then reported "machine starved" (no verdict
// about the system).
//
// Progress: every line a scenario says, its starved-part retries included, is its timeline's
// (fault::Timeline::say): "real-chaos <scenario>: ...".
//
// Verdicts are the shared fault::Verdict (fault/verdict.hpp); faults_judge.hpp decides them.
//
// Nothing outlives a run: servers are real::MariadbServer (own process group, parent-death
// signal, swept at the next start), clients are fault::Fleet nodes (killed with the fleet,
// parent-death signal) and their adapters contained external::Programs that die with them;
// idbench-inject, under --clock-injector ptrace, is a plumbing::ChildProcess (parent-death
// signal; detached, exit 0 and TracerPid 0 checked, before its server stops); a signal ends the
// run with plumbing::Interrupted.
//
// Thread safety: run_fault_scenario() starts and stops its client processes from the calling
// thread, which must outlive them (it does: they end before it returns); call it from one
// thread at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chaos/clock_injector.hpp"
#include "external/stderr_capture.hpp"
#include "fault/timeline.hpp"
#include "fault/verdict.hpp"
#include "generators/errors.hpp"
#include "generators/id.hpp"
#include "generators/registry.hpp"
#include "real/server.hpp"

namespace idbench::real {

// One ID as a client received it.
struct IssuedId {
  Id id;
  std::int64_t true_ns = 0;  // CLOCK_REALTIME when the reply arrived (raw syscall)
  std::int64_t mono_ns = 0;  // CLOCK_MONOTONIC, same instant
  std::uint16_t client = 0;
  std::uint16_t server = 0;  // which server issued it (the ticket pair: by parity)
};

// A request that failed (the adapter reported an error, exited, or could not start).
struct FailedRequest {
  std::int64_t true_ns = 0;
  std::int64_t mono_ns = 0;
  std::uint16_t client = 0;
  std::string message;
};

// One probe of a server's clock: its SYSDATE(6) against true time.
struct ClockProbe {
  std::int64_t true_ns = 0;
  double server_minus_true_ms = 0;
  std::int64_t server_pid = 0;  // the server's pid (its pid file) at the probe; 0: not known
};

// A probe of `server`'s own clock (Server::clock_unix_s) against true time, with its pid. The
// server read its clock somewhere inside the probe's round trip; the probe takes the middle, so
// a round trip over kProbeRoundTripNs (a busy server) is asked again, up to kProbeTries times,
// and the narrowest kept.
ClockProbe probe_clock(Server& server);
inline constexpr std::int64_t kProbeRoundTripNs = 100'000'000;
inline constexpr int kProbeTries = 5;

// Everything one scenario measured. Pure data: analyse_faults() turns it into figures.
struct FaultRecords {
  // ms from the part's start to true time `true_ns`, as reports and verdicts show times.
  double ms_since_start(std::int64_t true_ns) const {
    return static_cast<double>(true_ns - start_true_ns) / 1e6;
  }
  std::int64_t start_true_ns = 0;
  std::int64_t start_mono_ns = 0;
  std::int64_t stop_mono_ns = 0;
  int servers = 1;
  std::vector<IssuedId> ids;  // every ID, in no particular order
  std::vector<FailedRequest> failures;
  std::uint64_t requests = 0;              // attempted, successful or not
  std::vector<fault::FaultRecord> events;  // what the scenario played, when (its timeline's)
  std::vector<ClockProbe> probes;
  // What the adapters wrote on stderr: their summary counters (retries, deadlocks, failovers;
  // summed over every adapter of the part, nullopt when none printed one) and other lines.
  external::CapturedStderr adapter_stderr;
};

struct TimelineBucket {
  double t_ms = 0;                 // bucket start, true ms since the run started
  std::vector<std::uint64_t> ids;  // per server
  std::uint64_t failures = 0;
  std::optional<double> skew_min_ms;  // embedded time − true time (IDs carrying time)
  std::optional<double> skew_max_ms;
};

// The figures every scenario reports.
struct FaultFigures {
  std::uint64_t requests = 0;
  std::uint64_t ids = 0;
  std::uint64_t failures = 0;
  double availability = 1.0;     // ids / requests
  double longest_gap_ms = 0;     // longest time no client received an ID (monotonic)
  std::uint64_t duplicates = 0;  // extra copies, by the shared checker (check/)
  std::uint64_t duplicated_values = 0;
  std::vector<std::string> duplicate_examples;  // "<id> x2 at 1200.3 ms and 4410.0 ms"
  // Per client, an ID below the one the same client received before it (UUID v1: by its
  // embedded time).
  std::uint64_t order_violations = 0;
  // Across all clients in true-time order, an ID below the largest issued before it.
  std::uint64_t regressions = 0;
  // The largest true-time gap between two IDs whose ID order contradicts their true order.
  double ksort_bound_ms = 0;
  std::vector<std::uint64_t> ids_per_server;
  // Two servers: the largest |latest ID of server 0 − latest ID of server 1| over the run.
  std::uint64_t max_server_lag = 0;
  std::optional<double> skew_min_ms;  // embedded − true, IDs carrying time
  std::optional<double> skew_max_ms;
  std::vector<TimelineBucket> timeline;
};

inline constexpr double kTimelineBucketMs = 100;

// Pure: the figures from the records. `id_time` says how an ID carries its time (IdTime::uuid
// for UUID(); none for counters; IdTime::layout by `layout`, a preset or spec).
FaultFigures analyse_faults(const FaultRecords& records, IdWidth width, IdTime id_time,
                            const std::string& layout = "");

// One system's part of a scenario (a scenario may run several, e.g. UUID() and UUID_SHORT()).
struct FaultPart {
  std::string system;    // "mariadb-ticket-pair", ...
  std::string settings;  // the servers' describe(): durability, lock mode, version
  std::string label;     // what varies between parts ("innodb_flush_log_at_trx_commit=2")
  IdWidth width = IdWidth::bits64;
  IdTime id_time = IdTime::none;
  std::string layout;  // IdTime::layout: the layout its IDs decode by ("instagram")
  FaultRecords records;
  FaultFigures figures;
  // kept, available, DUPLICATES, unavailable, no evidence, fault not applied or machine
  // starved; its evidence line holds the numbers it rests on, its findings what was measured.
  fault::Verdict verdict;
  // Each server's log tail when the part ended: what a failing test shows (not in the JSON).
  std::vector<std::string> server_logs;
};

struct FaultRun {
  std::string scenario;
  std::string description;
  std::vector<FaultPart> parts;
  fault::Verdict verdict;  // the scenario's: fails when any part fails
};

struct FaultScenario {
  std::string name;
  std::string summary;
};
const std::vector<FaultScenario>& fault_scenarios();

struct FaultOptions {
  // Multiplies every phase of a scenario (a quick test runs at 0.5).
  double time_scale = 1.0;
  unsigned clients = 2;
  // auto-increment-kill9: the innodb_flush_log_at_trx_commit values to try, and the
  // innodb_autoinc_lock_mode values (1 is MariaDB 10.11's default, 2 interleaved).
  std::vector<int> flush_values = {1, 2, 0};
  std::vector<int> lock_modes = {1, 2};
  // postgres-kill9, postgres-standby-promotion: PostgreSQL's synchronous_commit values to try.
  std::vector<std::string> synchronous_commit = {"on", "off"};
  // postgres-clock-back: the steps back (s) of the server's wall clock, and the client counts
  // that set the two rates.
  std::vector<double> clock_steps_s = {1, 5};  // --steps 1,5,60 adds a minute-long step
  std::vector<unsigned> rate_clients = {1, 4};
  // redis-kill9, redis-replica-promotion: Redis's persistence settings to try (the append-only
  // ones for redis-kill9-disk-busy).
  std::vector<RedisPersistence> redis_persistence = {
      RedisPersistence::aof_always, RedisPersistence::aof_everysec, RedisPersistence::rdb};
  // Evidence on both sides of a fault: before it, and after the recovery, every client must
  // have received `issuing_ids` IDs within `issuing_deadline_s`; else the machine starved the
  // clients, and the part is played again (kStarvedRetries times at most).
  std::uint64_t issuing_ids = 10;
  double issuing_deadline_s = 20;
  // Only the parts on this real system (a scenario runs on one or two); empty: all of them.
  // The UUID scenarios run UUID() and UUID_SHORT() together; naming either keeps both.
  std::string system;
  // How the UUID scenarios fake the servers' wall clock (chaos/clock_injector.hpp): libfaketime
  // (mariadbd started under LD_PRELOAD) or ptrace (uuid-clock-back attaches idbench-inject to
  // the running servers; uuid-short-restart-behind starts them under it). The scenarios with no
  // clock fault ignore it.
  chaos::ClockInjector clock_injector = chaos::ClockInjector::libfaketime;
  FILE* progress = nullptr;  // progress lines go here when set
};

// The machine did not let a part's clients issue: fewer than FaultOptions::issuing_ids IDs per
// client on one side of its fault within the deadline. Not a finding about the system.
class MachineStarved : public Error {
 public:
  using Error::Error;
};

// How often a starved part is played again (then its outcome is machine_starved).
inline constexpr int kStarvedRetries = 2;

// Plays `play` (parts of one scenario), again when it throws MachineStarved, `retries` more
// times at most; the parts of an attempt after a starved one carry the finding "retried N
// times: …". When every attempt starved, returns `starved` (parts naming only their system and
// label) with the verdict "machine starved", not passed: the machine's fault, no verdict about
// the system. Each starved attempt is said on `progress` (the scenario's timeline, so in the
// one progress-line format): "real-chaos auto-increment-kill9: mariadb-auto-increment <label>:
// <why> (attempt 1 of 3); playing it again".
std::vector<FaultPart> play_unstarved(const std::function<std::vector<FaultPart>()>& play,
                                      std::vector<FaultPart> starved, int retries,
                                      const fault::Timeline& progress);

// Why `options` cannot run scenario `name` (one line, as an error says it); empty when they
// can: redis-kill9-disk-busy with no append-only --redis-persistence.
std::string why_not_runnable(std::string_view name, const FaultOptions& options);

// Runs one scenario. Throws Error for an unknown name or one why_not_runnable() refuses (exit 2),
// Error with kExitMissingTool semantics from MariadbServer when MariaDB is missing,
// plumbing::Interrupted on a signal.
FaultRun run_fault_scenario(std::string_view name, const FaultOptions& options);

// Reporting, no measuring.
// faults_text.cpp: "ticket-restore: DUPLICATES — duplicates issued: 812 (…)" and a line per
// finding.
std::string to_text(const FaultRun& run);
// faults_json.cpp: the JSON the report draws (README, "Faults on the real systems").
nlohmann::ordered_json to_json(const FaultRun& run);

}  // namespace idbench::real
