// faults.cpp — the fault scenarios on the real systems: each starts its servers, runs adapter
// clients, plays its fault at set moments through its nemeses (Stage::play) and records every
// ID (faults.hpp). The figures are computed by faults_analysis.cpp; the judgement of each
// scenario is here, beside the fault it judges; faults_json.cpp and faults_text.cpp format.
#include "real/faults.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "external/program.hpp"
#include "fault/nemesis.hpp"
#include "fault/retry.hpp"
#include "fault/timeline.hpp"
#include "generators/errors.hpp"
#include "generators/layout.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/free_ports.hpp"
#include "plumbing/raw_time.hpp"
#include "real/faults_clients.hpp"
#include "real/faults_judge.hpp"
#include "real/fsync_stall_nemesis.hpp"
#include "real/link_partition.hpp"
#include "real/postgres_server.hpp"
#include "real/redis_server.hpp"
#include "real/server_clock_attach.hpp"
#include "real/server_clock_nemesis.hpp"
#include "real/server_nemesis.hpp"
#include "real/snapshot_nemesis.hpp"
#include "real/systems.hpp"

namespace idbench::real {
namespace {

const RealSystem& system_named(std::string_view name) {
  const RealSystem* s = find_real_system(name);
  if (s == nullptr) throw Error(fmt::format("real system '{}' is not in the registry", name));
  return *s;
}

std::uint16_t one_server(const Id&) { return 0; }

std::int64_t seconds_ns(double seconds) { return std::llround(seconds * 1e9); }

// Which server issued an ID, from the servers' auto_increment settings: the ticket pair counts
// by 2 from offsets 1 and 2, so odd IDs are server 0's and even IDs server 1's.
ServerOf by_offset(RunningSystem& run) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counting;  // (increment, offset)
  if (run.system().server_kind != ServerKind::mariadb) return one_server;
  for (std::size_t i = 0; i < run.servers().size(); ++i) {
    const MariadbSettings& m = run.settings(i).mariadb;
    counting.emplace_back(static_cast<std::uint64_t>(m.auto_increment_increment),
                          static_cast<std::uint64_t>(m.auto_increment_offset));
  }
  if (counting.size() < 2) return one_server;
  return [counting](const Id& id) {
    for (std::size_t i = 0; i < counting.size(); ++i) {
      const auto [increment, offset] = counting[i];
      if (increment > 0 && id.lo % increment == offset % increment) {
        return static_cast<std::uint16_t>(i);
      }
    }
    return std::uint16_t{0};
  };
}

// The systems a scenario runs on, less those --system leaves out; Error when none is left.
std::vector<const RealSystem*> systems_for(std::string_view scenario,
                                           std::initializer_list<std::string_view> names,
                                           const FaultOptions& o) {
  std::vector<const RealSystem*> out;
  std::string all;
  for (std::string_view n : names) {
    all += fmt::format("{}{}", all.empty() ? "" : ", ", n);
    if (o.system.empty() || o.system == n) out.push_back(&system_named(n));
  }
  if (out.empty()) {
    throw Error(fmt::format("{} does not run on {} (it runs on {})", scenario, o.system, all));
  }
  return out;
}

// A scenario's timeline: its progress lines read "real-chaos <scenario>: ...", the one format
// of every line a scenario says, its starved-part retries included.
fault::Timeline progress_of(std::string scenario, const FaultOptions& o) {
  return {"real-chaos", std::move(scenario), o.progress};
}

// The clock of a scenario, on its fault::Timeline: phases held for scaled durations, nemesis
// steps played and harness events recorded with their time into the parts' records, progress
// lines while it waits.
class Stage {
 public:
  Stage(std::string scenario, const FaultOptions& options)
      : options_(options), timeline_(progress_of(std::move(scenario), options)) {}

  // A part begins now: its records' instant 0 is the timeline's.
  void begin(FaultRecords& r, int servers) {
    timeline_.start_in();
    r.servers = servers;
    r.start_true_ns = timeline_.start_true_ns();
    r.start_mono_ns = timeline_.start_mono_ns();
  }
  void end(FaultRecords& r) const { r.stop_mono_ns = plumbing::monotonic_ns(); }

  // Records what the harness did or saw (kind "harness": no fault, a server that answers
  // again), now, in every record set given, and says it; returns the instant (true ns).
  std::int64_t event(std::initializer_list<FaultRecords*> records, const std::string& what) {
    return keep(timeline_.record(fault::kNoNode, "harness", what), records);
  }

  // Plays `step` on `nemesis` (kind "fault" unless the step names one): every fault of a
  // scenario goes through here. Its record, the last entry the step adds (fault/nemesis.hpp),
  // is kept in every record set given; returns its instant (true ns). Throws std::logic_error
  // when the nemesis did not record the step.
  std::int64_t play(fault::Nemesis& nemesis, fault::FaultStep step,
                    std::initializer_list<FaultRecords*> records) {
    if (step.kind.empty()) step.kind = "fault";
    const std::size_t before = timeline_.history().size();
    nemesis.invoke(step, timeline_);
    const std::vector<fault::FaultRecord>& h = timeline_.history();
    if (h.size() == before || h.back().kind != step.kind || h.back().what != step.what) {
      throw std::logic_error(
          fmt::format("the {} nemesis did not record '{}'", nemesis.kind(), step.what));
    }
    return keep(h.back(), records);
  }

  void say(const std::string& line) const { timeline_.say(line); }

  // Holds for `seconds` × time scale while the clients work; a progress line every second.
  void hold(double seconds, std::string_view what,
            std::initializer_list<const ClientPool*> pools) const {
    const auto total = static_cast<std::int64_t>(seconds * options_.time_scale * 1e9);
    const std::int64_t start = plumbing::monotonic_ns();
    for (std::int64_t next_line = start + 1'000'000'000;; next_line += 1'000'000'000) {
      timeline_.wait_until(std::min(start + total, next_line));
      const std::int64_t now = plumbing::monotonic_ns();
      if (now >= start + total) break;
      std::uint64_t ids = 0, failures = 0;
      for (const ClientPool* p : pools) ids += p->ids(), failures += p->failures();
      say(fmt::format("{} {:.1f}/{:.1f} s, {} IDs, {} failed requests", what,
                      static_cast<double>(now - start) / 1e9, static_cast<double>(total) / 1e9, ids,
                      failures));
    }
  }

  // Returns once every client of `pool` has received options.issuing_ids IDs more than
  // `since` (ids_per_client() taken earlier; empty: from the start), so that the side of the
  // fault `side` names has evidence; throws MachineStarved after options.issuing_deadline_s.
  void await_issuing(const ClientPool& pool, const std::vector<std::uint64_t>& since,
                     std::string_view side) const {
    const auto wait = static_cast<std::int64_t>(options_.issuing_deadline_s * 1e9);
    if (pool.await_ids(since, options_.issuing_ids, plumbing::monotonic_ns() + wait)) return;
    std::string got;
    const std::vector<std::uint64_t> now = pool.ids_per_client();
    for (std::size_t i = 0; i < now.size(); ++i) {
      got +=
          fmt::format("{}{}", got.empty() ? "" : ", ", now[i] - (i < since.size() ? since[i] : 0));
    }
    throw MachineStarved(fmt::format(
        "the clients received {} IDs {} within {:.1f} s, {} each wanted: the machine did not let "
        "them issue",
        got, side, options_.issuing_deadline_s, options_.issuing_ids));
  }

 private:
  static std::int64_t keep(const fault::FaultRecord& e,
                           std::initializer_list<FaultRecords*> records) {
    for (FaultRecords* r : records) r->events.push_back(e);
    return e.true_ns;
  }

  const FaultOptions& options_;
  fault::Timeline timeline_;
};

FaultPart part_of(const RealSystem& s, RunningSystem& run) {
  FaultPart p;
  p.system = s.name;
  p.settings = run.describe();
  p.width = s.exec.width.value_or(IdWidth::bits64);
  p.id_time = s.exec.id_time;
  p.layout = s.exec.layout;
  return p;
}

void finish(FaultPart& p) { p.figures = analyse_faults(p.records, p.width, p.id_time, p.layout); }

// Says what the part's adapters wrote on stderr (captured, so --quiet is quiet): their other
// lines, then their summed counters.
void say_adapter_stderr(const Stage& st, const FaultPart& p) {
  const external::CapturedStderr& e = p.records.adapter_stderr;
  for (const std::string& line : e.lines) st.say(p.system + " adapter: " + line);
  if (!e.counters) return;
  std::string text;
  for (const auto& [k, v] : *e.counters) text += fmt::format(" {}={}", k, v);
  st.say(p.system + " adapters, summed:" + text);
}

// One system's part of a scenario under load: its servers up, the part begun, its clients
// asking (the ticket pair's IDs attributed to their server by parity).
struct UnderLoad {
  UnderLoad(Stage& st, const RealSystem& sys, const ServerSettings& base, const FaultOptions& o)
      : run(sys, base), part(part_of(sys, run)) {
    st.begin(part.records, static_cast<int>(run.servers().size()));
    pool = std::make_unique<ClientPool>(run.exec_spec(), o.clients, by_offset(run));
  }
  Server& server(std::size_t i) { return *run.servers().at(i); }
  // Ends the part: its clients stopped and collected, what they gathered analysed.
  FaultPart& collect(Stage& st) {
    pool->stop_into(part.records);
    for (Server* s : run.servers()) part.server_logs.push_back(s->log_tail());
    st.end(part.records);
    finish(part);
    say_adapter_stderr(st, part);
    return part;
  }

  RunningSystem run;
  FaultPart part;
  std::unique_ptr<ClientPool> pool;
};

// When a crashed server went down, was started again, and answered again (true ns).
struct Crash {
  std::int64_t killed_ns, restarting_ns, back_ns;
};

// kill -9 of `server` (called `who` in the events), `down_s` × the time scale of load without
// it, then its restart, through crash recovery, until it answers again: the server's nemesis
// plays the crash and the restart, the harness records that it answers.
Crash crash_and_restart(Stage& st, UnderLoad& u, Server& server, const std::string& who,
                        double down_s) {
  Crash c{};
  ServerCrashNemesis crash(server);
  c.killed_ns = st.play(crash, {.op = "kill", .what = "kill -9 of " + who}, {&u.part.records});
  st.hold(down_s, who + " down", {u.pool.get()});
  c.restarting_ns = st.play(crash, {.op = "start", .what = who + " restarting (crash recovery)"},
                            {&u.part.records});
  c.back_ns = st.event({&u.part.records}, who + " answers again");
  return c;
}

std::vector<FaultPart> one_part(FaultPart p) {
  std::vector<FaultPart> out;
  out.push_back(std::move(p));
  return out;
}

void add_parts(FaultRun& r, std::vector<FaultPart> parts) {
  for (FaultPart& p : parts) r.parts.push_back(std::move(p));
}

// What a part that never ran knows of itself: its system and label.
FaultPart shape_of(const RealSystem& s, std::string label = "") {
  FaultPart p;
  p.system = s.name;
  p.label = std::move(label);
  p.width = s.exec.width.value_or(IdWidth::bits64);
  p.id_time = s.exec.id_time;
  return p;
}

// A scenario that plays its fault on each of its systems in turn.
FaultRun on_each(std::string_view scenario, std::initializer_list<std::string_view> names,
                 const FaultOptions& o, FaultPart (*play)(const RealSystem&, const FaultOptions&)) {
  FaultRun r{std::string(scenario), "", {}, {}};
  for (const RealSystem* s : systems_for(scenario, names, o)) {
    add_parts(r, play_unstarved([&] { return one_part(play(*s, o)); }, one_part(shape_of(*s)),
                                kStarvedRetries, progress_of(std::string(scenario), o)));
  }
  return r;
}

// Ends the two parts of a UUID scenario (one pool each): clients stopped, figures computed.
void collect_pair(Stage& st, ClientPool& pa, ClientPool& pb, FaultPart& a, FaultPart& b) {
  pa.stop_into(a.records);
  pb.stop_into(b.records);
  st.end(a.records);
  st.end(b.records);
  finish(a);
  finish(b);
  say_adapter_stderr(st, a);
  say_adapter_stderr(st, b);
}

// Server 0 copied at 1 s (a cold copy; PostgreSQL: pg_basebackup while it serves), serving on,
// then stopped, its data restored from the copy and started: its counter goes back.
FaultPart restore_on(std::string_view scenario, const RealSystem& sys, const FaultOptions& o) {
  Stage st(std::string(scenario), o);
  UnderLoad u(st, sys, ServerSettings{}, o);
  FaultRecords& r = u.part.records;
  const ClientPool& pool = *u.pool;
  SnapshotNemesis snapshots(u.server(0));
  const bool hot = sys.server_kind == ServerKind::postgres;
  st.hold(1.0, "serving", {&pool});
  st.play(snapshots,
          {.op = "snapshot",
           .what = hot ? "snapshot of server 0 (pg_basebackup while it serves)"
                       : "snapshot of server 0 (a cold copy of its data directory)"},
          {&r});
  const std::int64_t copied_ns = st.event({&r}, "server 0 serves again after the snapshot");
  const std::vector<std::uint64_t> at_copy = pool.ids_per_client();
  st.hold(1.5, "serving after the snapshot", {&pool});
  st.await_issuing(pool, at_copy, "between the copy and the restore");
  st.play(snapshots,
          {.op = "restore", .what = "server 0 stopped; its data directory restored from the copy"},
          {&r});
  const std::int64_t restored_ns = st.event({&r}, "server 0 started on the restored copy");
  const std::vector<std::uint64_t> at_restore = pool.ids_per_client();
  st.hold(1.5, "serving after the restore", {&pool});
  st.await_issuing(pool, at_restore, "after the restore");
  FaultPart& p = u.collect(st);
  p.verdict = judge_ticket_restore(p, copied_ns, restored_ns);
  return std::move(p);
}

FaultPart ticket_restore_on(const RealSystem& sys, const FaultOptions& o) {
  return restore_on("ticket-restore", sys, o);
}

FaultRun ticket_restore(const FaultOptions& o) {
  return on_each("ticket-restore", {"mariadb-ticket-pair-myisam", "mariadb-ticket-update"}, o,
                 ticket_restore_on);
}

FaultPart postgres_restore_on(const RealSystem& sys, const FaultOptions& o) {
  return restore_on("postgres-restore", sys, o);
}

// PostgreSQL restored from a base backup taken while it served: its sequences go back to the
// backup's end.
FaultRun postgres_restore(const FaultOptions& o) {
  return on_each("postgres-restore", {"postgres-sequence", "postgres-instagram-next-id"}, o,
                 postgres_restore_on);
}

FaultPart ticket_server_down_on(const RealSystem& sys, const FaultOptions& o) {
  Stage st("ticket-server-down", o);
  UnderLoad u(st, sys, MariadbSettings{}, o);
  st.hold(1.0, "both servers up", {u.pool.get()});
  st.await_issuing(*u.pool, {}, "before the kill");
  const Crash c = crash_and_restart(st, u, u.server(1), "server 1", 2.0);
  st.hold(1.5, "both servers up again", {u.pool.get()});
  FaultPart& p = u.collect(st);
  p.verdict = judge_ticket_server_down(p, c.killed_ns, c.restarting_ns);
  return std::move(p);
}

FaultRun ticket_server_down(const FaultOptions& o) {
  return on_each("ticket-server-down", {"mariadb-ticket-pair-myisam", "mariadb-ticket-pair-innodb"},
                 o, ticket_server_down_on);
}

std::string kill9_label(int flush, int lock_mode) {
  return fmt::format("innodb_flush_log_at_trx_commit={}, innodb_autoinc_lock_mode={}", flush,
                     lock_mode);
}

// The server process a kill -9 takes down, as the events name it.
std::string process_of(const RealSystem& s) {
  switch (s.server_kind) {
    case ServerKind::postgres:
      return "postgres";
    case ServerKind::redis:
      return "redis-server";
    default:
      return "mariadbd";
  }
}

// A counter's values never handed out between its smallest and largest: what a crash
// recovery skipped (a sequence restarts past the last value it logged).
void add_gap_finding(FaultPart& p) {
  std::vector<std::uint64_t> v;
  for (const IssuedId& s : p.records.ids) v.push_back(s.id.lo);
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  p.verdict.findings.push_back(
      fmt::format("{} values between {} and {} were never handed out (the counter skipped them)",
                  v.back() - v.front() + 1 - v.size(), v.front(), v.back()));
}

// The kill -9 of server 0 and its restart through its recovery (its WAL, its append-only file,
// its last RDB snapshot), `after_s` × the time scale of load after it, and the part collected
// and judged.
FaultPart& crash_and_collect(Stage& st, UnderLoad& u, const RealSystem& sys, double after_s) {
  const Crash c = crash_and_restart(st, u, u.server(0), process_of(sys), 0);
  const std::vector<std::uint64_t> at_back = u.pool->ids_per_client();
  st.hold(after_s, "serving after recovery", {u.pool.get()});
  st.await_issuing(*u.pool, at_back, "after recovery");
  FaultPart& p = u.collect(st);
  p.verdict = judge_kill9(p, c.killed_ns, c.back_ns);
  return p;
}

// One kill -9 part: the server of `sys` started with `base`, serving, killed, restarted through
// its recovery, serving again.
FaultPart kill9_once(std::string_view scenario, const RealSystem& sys, const FaultOptions& o,
                     const ServerSettings& base, std::string label) {
  Stage st(std::string(scenario), o);
  UnderLoad u(st, sys, base, o);
  u.part.label = std::move(label);
  st.say(u.part.settings);
  st.hold(1.5, "serving", {u.pool.get()});
  st.await_issuing(*u.pool, {}, "before the crash");
  FaultPart& p = crash_and_collect(st, u, sys, 1.5);
  if (p.id_time == IdTime::none && p.width == IdWidth::bits64) add_gap_finding(p);
  return std::move(p);
}

// A kill -9 part per (system, durability setting), each played again when starved.
FaultRun kill9_each(std::string_view scenario, const std::vector<const RealSystem*>& systems,
                    const std::vector<ServerSettings>& settings, const FaultOptions& o) {
  FaultRun r{std::string(scenario), "", {}, {}};
  for (const RealSystem* s : systems) {
    for (const ServerSettings& base : settings) {
      const std::string label =
          s->server_kind == ServerKind::mariadb
              ? kill9_label(base.mariadb.flush_log_at_trx_commit, base.mariadb.autoinc_lock_mode)
              : durability_label(s->server_kind, base);
      add_parts(r,
                play_unstarved([&] { return one_part(kill9_once(scenario, *s, o, base, label)); },
                               one_part(shape_of(*s, label)), kStarvedRetries,
                               progress_of(std::string(scenario), o)));
    }
  }
  return r;
}

FaultRun auto_increment_kill9(const FaultOptions& o) {
  std::vector<ServerSettings> settings;
  for (const int flush : o.flush_values) {
    for (const int lock_mode : o.lock_modes) {
      MariadbSettings m;
      m.flush_log_at_trx_commit = flush;
      m.autoinc_lock_mode = lock_mode;
      settings.emplace_back(m);
    }
  }
  return kill9_each("auto-increment-kill9",
                    systems_for("auto-increment-kill9", {"mariadb-auto-increment"}, o), settings,
                    o);
}

// PostgreSQL: sequences are WAL-logged 32 values ahead of what they hand out; crash recovery
// restarts them past the last logged value (a gap), per synchronous_commit.
FaultRun postgres_kill9(const FaultOptions& o) {
  std::vector<ServerSettings> settings;
  for (const std::string& sync : o.synchronous_commit) {
    ServerSettings s;
    s.postgres.synchronous_commit = sync;
    settings.push_back(s);
  }
  return kill9_each(
      "postgres-kill9",
      systems_for("postgres-kill9",
                  {"postgres-sequence", "postgres-sequence-cache50", "postgres-identity"}, o),
      settings, o);
}

// Redis: INCR's counter after the restart is what the append-only file or the last RDB
// snapshot held, per persistence setting.
FaultRun redis_kill9(const FaultOptions& o) {
  std::vector<ServerSettings> settings;
  for (const RedisPersistence p : o.redis_persistence) {
    ServerSettings s;
    s.redis.persistence = p;
    settings.push_back(s);
  }
  return kill9_each("redis-kill9", systems_for("redis-kill9", {"redis-incr"}, o), settings, o);
}

// One INCR as Redis's AOF holds it: "*2\r\n$4\r\nINCR\r\n$3\r\nids\r\n".
constexpr std::uint64_t kAofIncrBytes = 23;

// Waits (at most 3 s × the time scale, and 1 s more) until Redis has handed its held fsync
// thread a job it cannot finish (aof_pending_bio_fsync:1): from then on, under everysec, it
// postpones writing its AOF buffer. False when it never did.
bool await_pending_fsync(Server& redis, double time_scale) {
  const std::int64_t until =
      plumbing::monotonic_ns() + seconds_ns(3 * std::max(time_scale, 1.0) + 1);
  while (redis_info_field(redis, "persistence", "aof_pending_bio_fsync") != "1") {
    if (plumbing::monotonic_ns() > until) return false;
    plumbing::throw_if_interrupted();
    ::usleep(20'000);
  }
  return true;
}

// kill -9 of redis-server while its background AOF fsync is stalled (a busy disk): its
// bio_aof_fsync thread held, the clients served on for a second (everysec: from when Redis
// first postponed a write), then the kill and the restart through the append-only file. What
// Redis acknowledged but had not written (INFO's aof_buffer_length, read just before the kill)
// is what a restart hands out again.
FaultPart kill9_stalled_on(const RealSystem& sys, const FaultOptions& o, RedisPersistence p) {
  Stage st("redis-kill9-disk-busy", o);
  ServerSettings base;
  base.redis.persistence = p;
  UnderLoad u(st, sys, base, o);
  u.part.label = durability_label(ServerKind::redis, base) + ", AOF fsync stalled";
  FaultRecords& r = u.part.records;
  st.say(u.part.settings);
  st.hold(1.5, "serving", {u.pool.get()});
  st.await_issuing(*u.pool, {}, "before the stall");
  FsyncStallNemesis stall(u.server(0), "bio_aof_fsync");
  st.play(stall,
          {.op = "stall",
           .what = "redis-server's background AOF fsync stalled (its bio_aof_fsync thread held): "
                   "a disk that does not answer"},
          {&r});
  const bool postponed =
      p != RedisPersistence::aof_everysec || await_pending_fsync(u.server(0), o.time_scale);
  if (postponed && p == RedisPersistence::aof_everysec) {
    st.event({&r}, "Redis has an fsync pending that cannot finish (aof_pending_bio_fsync:1)");
  }
  st.hold(1.0, "serving with the fsync stalled", {u.pool.get()});
  const std::string pending = redis_info_field(u.server(0), "persistence", "aof_pending_bio_fsync");
  const std::string buffered = redis_info_field(u.server(0), "persistence", "aof_buffer_length");
  st.play(stall,
          {.op = "freeze",
           .kind = "harness",
           .what = "redis-server stopped (SIGSTOP) for the kill, its fsync thread let go"},
          {&r});
  FaultPart& part = crash_and_collect(st, u, sys, 2.0);
  const std::uint64_t bytes = buffered.empty() ? 0 : std::stoull(buffered);
  part.verdict.findings.push_back(fmt::format(
      "just before the kill Redis held {} bytes it had acknowledged and not written to its "
      "append-only file (INFO persistence: aof_buffer_length, aof_pending_bio_fsync:{}): about "
      "{} INCRs of {} bytes, the values a restart hands out again",
      bytes, pending, bytes / kAofIncrBytes, kAofIncrBytes));
  if (!postponed) {
    part.verdict = {fault::Outcome::fault_not_applied,
                    "Redis never had an fsync pending while its fsync thread was held "
                    "(aof_pending_bio_fsync stayed 0): the stall did not reach its writes",
                    part.verdict.findings};
  }
  add_gap_finding(part);
  return std::move(part);
}

// Redis's append-only settings, each killed with -9 while its fsync is stalled.
FaultRun redis_kill9_disk_busy(const FaultOptions& o) {
  const char* scenario = "redis-kill9-disk-busy";
  FaultRun r{scenario, "", {}, {}};
  for (const RealSystem* s : systems_for(scenario, {"redis-incr"}, o)) {
    for (const RedisPersistence p : o.redis_persistence) {
      if (p == RedisPersistence::rdb) continue;  // no append-only file to stall
      ServerSettings shown;
      shown.redis.persistence = p;
      const std::string label = durability_label(ServerKind::redis, shown) + ", AOF fsync stalled";
      add_parts(r, play_unstarved([&] { return one_part(kill9_stalled_on(*s, o, p)); },
                                  one_part(shape_of(*s, label)), kStarvedRetries,
                                  progress_of(scenario, o)));
    }
  }
  return r;
}

// How the UUID servers start on the faked clock: under it from their first instruction
// (libfaketime's preload, or the ptrace injector's launch form), or on true time, the ptrace
// injector attached later to the running servers.
enum class UuidStart { on_the_clock, attached_later };

// The two UUID functions, each on its own server, both reading one faked clock.
struct UuidRig {
  UuidRig(const ServerClockNemesis& clock, UuidStart start)
      : uuid_sys(system_named("mariadb-uuid")),
        short_sys(system_named("mariadb-uuid-short")),
        uuid(uuid_sys, settings(clock, start)),
        shortid(short_sys, settings(clock, start)) {}
  static MariadbSettings settings(const ServerClockNemesis& clock, UuidStart start) {
    MariadbSettings s;
    s.env = clock.env();
    if (start == UuidStart::on_the_clock) s.launcher = clock.launcher();
    return s;
  }
  std::vector<Server*> servers() { return {uuid.servers().at(0), shortid.servers().at(0)}; }
  const RealSystem& uuid_sys;
  const RealSystem& short_sys;
  RunningSystem uuid;
  RunningSystem shortid;
};

void keep_logs(UuidRig& rig, FaultPart& a, FaultPart& b) {
  a.server_logs.push_back(rig.servers()[0]->log_tail());
  b.server_logs.push_back(rig.servers()[1]->log_tail());
}

void probe_all(UuidRig& rig, FaultPart& a, FaultPart& b) {
  a.records.probes.push_back(probe_clock(*rig.servers()[0]));
  b.records.probes.push_back(probe_clock(*rig.servers()[1]));
}

// The second UUID_SHORT() issued from its first ID (the start-up second in bits 24..55).
std::optional<std::int64_t> short_start_second(const FaultRecords& r) {
  if (r.ids.empty()) return std::nullopt;
  return static_cast<std::int64_t>((r.ids.front().id.lo >> 24) & 0xffffffffu);
}

// UUID_SHORT()'s start second before and after `event` (the restart, or the step) at `back_ns`,
// and how the two ranges meet.
void add_start_seconds(FaultPart& p, std::optional<std::int64_t> first, std::int64_t back_ns,
                       std::string_view event) {
  std::optional<std::int64_t> second;
  std::uint64_t max_before = 0;
  for (const IssuedId& s : p.records.ids) {
    if (s.true_ns < back_ns) max_before = std::max(max_before, s.id.lo);
    if (s.true_ns >= back_ns && !second) {
      second = static_cast<std::int64_t>((s.id.lo >> 24) & 0xffffffffu);
    }
  }
  std::uint64_t at_or_below = 0;
  for (const IssuedId& s : p.records.ids) {
    at_or_below += s.true_ns >= back_ns && s.id.lo <= max_before;
  }
  p.verdict.findings.push_back(fmt::format(
      "UUID_SHORT() start second (bits 24..55): {} before {}, {} after it; {} IDs after it are "
      "not above the largest issued before it",
      first ? std::to_string(*first) : "none", event, second ? std::to_string(*second) : "none",
      at_or_below));
}

// Under the ptrace injector: idbench-inject attached to both running servers (no restart),
// recorded as a harness event; none under libfaketime, whose servers started on the clock.
std::vector<std::unique_ptr<ServerClockAttachment>> attach_running(Stage& st,
                                                                   const ServerClockNemesis& clock,
                                                                   UuidRig& rig, FaultPart& a,
                                                                   FaultPart& b) {
  std::vector<std::unique_ptr<ServerClockAttachment>> out;
  if (clock.injector() != chaos::ClockInjector::ptrace) return out;
  for (Server* s : rig.servers()) {
    out.push_back(std::make_unique<ServerClockAttachment>(clock, s->pid(), "mariadbd"));
  }
  st.event({&a.records, &b.records},
           fmt::format("idbench-inject attached to the running servers (mariadbd pids {} and {}), "
                       "not restarted",
                       out[0]->pid(), out[1]->pid()));
  return out;
}

// Detaches what attach_running attached, before the servers stop: each injector ends (SIGTERM,
// exit 0) and leaves its server untraced and serving; a probe after it is a finding of each
// part (not one of its probes: the verdict's are those of the faked clock).
void detach_running(Stage& st, std::vector<std::unique_ptr<ServerClockAttachment>>& attached,
                    UuidRig& rig, FaultPart& a, FaultPart& b) {
  if (attached.empty()) return;
  for (auto& at : attached) at->detach();
  st.event({&a.records, &b.records},
           fmt::format("idbench-inject detached (SIGTERM, exit 0): mariadbd pids {} and {} "
                       "untraced (TracerPid 0), still serving",
                       attached[0]->pid(), attached[1]->pid()));
  FaultPart* parts[] = {&a, &b};
  for (std::size_t i = 0; i < 2; ++i) {
    const ClockProbe c = probe_clock(*rig.servers()[i]);
    parts[i]->verdict.findings.push_back(fmt::format(
        "after the detach: the server's SYSDATE(6) − true time {:+.1f} ms, pid {}, traced by {}",
        c.server_minus_true_ms, c.server_pid, traced_by(static_cast<pid_t>(c.server_pid))));
  }
}

std::vector<FaultPart> uuid_clock_back_parts(const FaultOptions& o) {
  Stage st("uuid-clock-back", o);
  ServerClockNemesis clock(o.clock_injector);
  UuidRig rig(clock, o.clock_injector == chaos::ClockInjector::ptrace ? UuidStart::attached_later
                                                                      : UuidStart::on_the_clock);
  FaultPart a = part_of(rig.uuid_sys, rig.uuid), b = part_of(rig.short_sys, rig.shortid);
  st.begin(a.records, 1);
  st.begin(b.records, 1);
  probe_all(rig, a, b);
  ClientPool pa(rig.uuid.exec_spec(), o.clients, one_server);
  ClientPool pb(rig.shortid.exec_spec(), o.clients, one_server);
  st.hold(1.5, "serving", {&pa, &pb});
  st.await_issuing(pa, {}, "before the step");
  st.await_issuing(pb, {}, "before the step");
  auto attached = attach_running(st, clock, rig, a, b);
  const std::int64_t step_ns =
      st.play(clock,
              {.op = "step",
               .step_ns = -seconds_ns(kUuidStepBackS),
               .what = fmt::format("the servers' wall clock stepped back {} s", kUuidStepBackS)},
              {&a.records, &b.records});
  probe_all(rig, a, b);
  const std::vector<std::uint64_t> a_at_step = pa.ids_per_client();
  const std::vector<std::uint64_t> b_at_step = pb.ids_per_client();
  st.hold(2.5, "serving with the clock behind", {&pa, &pb});
  st.await_issuing(pa, a_at_step, "after the step");
  st.await_issuing(pb, b_at_step, "after the step");
  probe_all(rig, a, b);
  collect_pair(st, pa, pb, a, b);
  keep_logs(rig, a, b);
  a.verdict = judge_uuid_clock_back(a, step_ns, kUuidStepBackS);
  b.verdict = judge_uuid_clock_back(b, step_ns, kUuidStepBackS);
  add_start_seconds(b, short_start_second(b.records), step_ns, "the step");
  detach_running(st, attached, rig, a, b);
  std::vector<FaultPart> parts = one_part(std::move(a));
  parts.push_back(std::move(b));
  return parts;
}

// The UUID scenarios' two parts, played again together when the machine starved them.
FaultRun uuid_pair(std::string_view scenario, std::initializer_list<std::string_view> names,
                   const FaultOptions& o, std::vector<FaultPart> (*play)(const FaultOptions&)) {
  FaultRun r{std::string(scenario), "", {}, {}};
  systems_for(scenario, names, o);
  std::vector<FaultPart> starved;
  for (std::string_view n : names) starved.push_back(shape_of(system_named(n)));
  add_parts(r, play_unstarved([&] { return play(o); }, std::move(starved), kStarvedRetries,
                              progress_of(std::string(scenario), o)));
  return r;
}

FaultRun uuid_clock_back(const FaultOptions& o) {
  return uuid_pair("uuid-clock-back", {"mariadb-uuid", "mariadb-uuid-short"}, o,
                   uuid_clock_back_parts);
}

std::vector<FaultPart> uuid_short_restart_behind_parts(const FaultOptions& o) {
  Stage st("uuid-short-restart-behind", o);
  ServerClockNemesis clock(o.clock_injector);
  // Under ptrace the servers run under idbench-inject from their first instruction (its launch
  // form), so the restarted server reads its start second from the stepped page.
  UuidRig rig(clock, UuidStart::on_the_clock);
  FaultPart a = part_of(rig.uuid_sys, rig.uuid), b = part_of(rig.short_sys, rig.shortid);
  st.begin(a.records, 1);
  st.begin(b.records, 1);
  auto pa = std::make_unique<ClientPool>(rig.uuid.exec_spec(), o.clients, one_server);
  auto pb = std::make_unique<ClientPool>(rig.shortid.exec_spec(), o.clients, one_server);
  st.hold(2.0, "serving", {pa.get(), pb.get()});
  st.await_issuing(*pa, {}, "before the restart");
  st.await_issuing(*pb, {}, "before the restart");
  // Stop the clients of the first lifetime before the restart, so the first start second is
  // known: UUID_SHORT()'s first ID carries it.
  pa->stop_into(a.records);
  pb->stop_into(b.records);
  const std::optional<std::int64_t> first_start = short_start_second(b.records);
  for (Server* s : rig.servers()) s->stop();
  st.event({&a.records, &b.records}, "both servers stopped");
  // The clock goes back to the first start's second: the restart reads it as its start time.
  const double behind = first_start ? static_cast<double>(plumbing::true_ns()) / 1e9 -
                                          static_cast<double>(*first_start)
                                    : kUuidStepBackS;
  st.play(clock,
          {.op = "step",
           .step_ns = -seconds_ns(behind),
           .what = fmt::format("the servers' wall clock set {:.3f} s behind (back to the first "
                               "start's second); restarting",
                               behind)},
          {&a.records, &b.records});
  // UUID_SHORT()'s server first: it reads its start second within the second it aims at.
  rig.servers()[1]->start();
  rig.servers()[0]->start();
  const std::int64_t back_ns = plumbing::true_ns();
  probe_all(rig, a, b);
  st.event({&a.records, &b.records}, "both servers answer again");
  pa = std::make_unique<ClientPool>(rig.uuid.exec_spec(), o.clients, one_server, o.clients);
  pb = std::make_unique<ClientPool>(rig.shortid.exec_spec(), o.clients, one_server, o.clients);
  st.hold(2.0, "serving after the restart", {pa.get(), pb.get()});
  st.await_issuing(*pa, {}, "after the restart");
  st.await_issuing(*pb, {}, "after the restart");
  collect_pair(st, *pa, *pb, a, b);
  keep_logs(rig, a, b);
  a.verdict = judge_restart_behind(a, back_ns, behind);
  b.verdict = judge_restart_behind(b, back_ns, behind);
  add_start_seconds(b, first_start, back_ns, "the restart");
  std::vector<FaultPart> parts = one_part(std::move(b));
  parts.push_back(std::move(a));
  return parts;
}

FaultRun uuid_short_restart_behind(const FaultOptions& o) {
  return uuid_pair("uuid-short-restart-behind", {"mariadb-uuid-short", "mariadb-uuid"}, o,
                   uuid_short_restart_behind_parts);
}

// Waits (at most 30 s) until the Redis replica's link to its master is `state` ("up": its
// first sync done; "down": it has read all its link held and seen it end).
void await_replica_link(Server& replica, std::string_view state) {
  const std::int64_t deadline = plumbing::monotonic_ns() + 30'000'000'000;
  while (redis_info_field(replica, "replication", "master_link_status") != state) {
    if (plumbing::monotonic_ns() > deadline) {
      throw Error(
          fmt::format("the Redis replica's link to its master was not {} within 30 s", state));
    }
    plumbing::throw_if_interrupted();
    ::usleep(20'000);
  }
}

// The largest value handed out before `before_ns` (true ns); 0 when none.
std::uint64_t last_value_before(const FaultRecords& r, std::int64_t before_ns) {
  std::uint64_t last = 0;
  for (const IssuedId& s : r.ids) {
    if (s.true_ns < before_ns) last = std::max(last, s.id.lo);
  }
  return last;
}

// A promotion's verdict (judge_kill9's, from the kill to the promotion) and what it re-issues,
// from the servers' own state rather than from the IDs: the master handed out up to the largest
// ID its clients received before the link was dropped (after its kill: a reply read late was
// still the master's, and the replica serves only later); the promoted replica held
// `promoted_at` (read from it before it took writes), so it hands out master_last − promoted_at
// of those values again, as far as its clients ask for them. A replica that held all the master
// handed out was never cut off: the partition did not reach it, and the part proves nothing.
fault::Verdict judge_promotion(const FaultPart& p, std::string_view replica,
                               std::string_view held_by, std::uint64_t promoted_at,
                               std::int64_t cut_ns, std::int64_t killed_ns, std::int64_t dropped_ns,
                               std::int64_t promoted_ns) {
  fault::Verdict v = judge_kill9(p, killed_ns, promoted_ns);
  const std::uint64_t master_last = last_value_before(p.records, dropped_ns);
  const std::uint64_t behind = master_last > promoted_at ? master_last - promoted_at : 0;
  const std::uint64_t after =
      ids_between(p.records, promoted_ns, std::numeric_limits<std::int64_t>::max());
  v.findings.push_back(fmt::format(
      "when promoted the {} ({}) held {}; the master had handed out up to {} before its kill, "
      "{:.0f} ms after the link was cut: {} values the {} never received, so min({}, {} IDs "
      "issued after the promotion) = {} expected twice",
      replica, held_by, promoted_at, master_last, static_cast<double>(killed_ns - cut_ns) / 1e6,
      behind, replica, behind, after, std::min(behind, after)));
  if (behind == 0 && master_last > 0) {
    v = {fault::Outcome::fault_not_applied,
         fmt::format("the {} held all the master handed out ({}): the cut link held nothing back",
                     replica, master_last),
         v.findings};
  }
  return v;
}

// The clients' adapter spec of `master`'s system with `replica`'s socket after the master's:
// they hand over to it once it answers writes.
external::ExecSpec with_replica(RunningSystem& master, const Server& replica) {
  external::ExecSpec spec = master.exec_spec();
  const std::string variable = std::string(socket_env(replica.kind())) + "=";
  for (std::string& e : spec.env) {
    if (e.starts_with(variable)) e += "," + replica.socket();
  }
  return spec;
}

// How a promotion scenario names, reads and promotes its replica.
struct Promotion {
  std::string master;   // "master redis-server": what its kill names
  std::string replica;  // "replica", "standby"
  std::string held_by;  // how its value is read ("GET ids")
  std::string promote;  // how it is promoted ("REPLICAOF NO ONE")
  // Once its link is down: waits until it has applied all it received, and returns its value.
  std::function<std::uint64_t()> settle_and_read;
  std::function<void()> promote_it;
};

// The part of a promotion scenario from its clients serving the master on: the link cut (the
// relay stopped) and the master left serving for a second, as when a network drops an
// asynchronous replica's traffic; the master killed with -9, the relay dropped; the replica
// read and promoted, the clients served by it; the part ended and judged (judge_promotion).
void promote_after_cut(Stage& st, FaultPart& part, ClientPool& pool, LinkRelay& relay,
                       Server& master, Server& replica, const Promotion& how) {
  FaultRecords& r = part.records;
  st.say(fmt::format("{}; {}: {}, linked through {}", part.settings, how.replica,
                     replica.describe(), relay.describe()));
  st.hold(1.5, "serving from the master", {&pool});
  st.await_issuing(pool, {}, "before the partition");
  LinkPartitionNemesis link(relay);
  const std::int64_t cut_ns = st.play(
      link,
      {.op = "partition",
       .what = "the replication link cut (its relay stopped): the replica receives nothing more"},
      {&r});
  st.hold(1.0, "the master serving, its replica cut off", {&pool});
  ServerCrashNemesis crash(master);
  const std::int64_t killed_ns =
      st.play(crash, {.op = "kill", .what = "kill -9 of the " + how.master}, {&r});
  const std::int64_t dropped_ns = st.play(
      link, {.op = "drop", .kind = "harness", .what = "the relay ended: the link is down"}, {&r});
  const std::uint64_t held = how.settle_and_read();  // read-only until promoted
  how.promote_it();
  const std::int64_t promoted_ns = st.event(
      {&r}, fmt::format("the {} promoted ({}): it takes writes", how.replica, how.promote));
  const std::vector<std::uint64_t> at_promotion = pool.ids_per_client();
  st.hold(1.5, "serving from the promoted " + how.replica, {&pool});
  st.await_issuing(pool, at_promotion, "after the promotion");
  pool.stop_into(r);
  part.server_logs = {master.log_tail(), replica.log_tail()};
  st.end(r);
  finish(part);
  say_adapter_stderr(st, part);
  part.verdict = judge_promotion(part, how.replica, how.held_by, held, cut_ns, killed_ns,
                                 dropped_ns, promoted_ns);
}

// Redis's asynchronous replica: a second redis-server replicating the master (on a loopback
// port chosen free now) through a relay; the clients know both sockets (master first) and hand
// over to the replica once it answers writes. The link is cut, the master killed a second
// later, the replica promoted.
FaultPart redis_promotion_on(const RealSystem& sys, const FaultOptions& o, RedisPersistence p) {
  Stage st("redis-replica-promotion", o);
  ServerSettings base;
  base.redis.persistence = p;
  base.redis.port = plumbing::free_loopback_ports(1, "the Redis master").front();
  RunningSystem master(sys, base);
  LinkRelay relay = LinkRelay::tcp(base.redis.port);
  ServerSettings replica_settings;
  replica_settings.redis.persistence = p;
  replica_settings.redis.replica_of_port = relay.port();
  RedisServer replica(replica_settings.redis);
  FaultPart part = part_of(sys, master);
  part.label = "async replica promoted, " + durability_label(ServerKind::redis, base);
  st.begin(part.records, 1);
  await_replica_link(replica, "up");
  ClientPool pool(with_replica(master, replica), o.clients, one_server);
  const Promotion how{.master = "master redis-server",
                      .replica = "replica",
                      .held_by = "GET ids",
                      .promote = "REPLICAOF NO ONE",
                      .settle_and_read =
                          [&] {
                            await_replica_link(replica, "down");
                            const std::string ids = replica.query("GET ids");
                            return ids.empty() ? std::uint64_t{0} : std::stoull(ids);
                          },
                      .promote_it = [&] { replica.query("REPLICAOF NO ONE"); }};
  promote_after_cut(st, part, pool, relay, *master.servers().at(0), replica, how);
  return part;
}

FaultRun redis_replica_promotion(const FaultOptions& o) {
  const char* scenario = "redis-replica-promotion";
  FaultRun r{scenario, "", {}, {}};
  for (const RealSystem* s : systems_for(scenario, {"redis-incr"}, o)) {
    for (const RedisPersistence p : o.redis_persistence) {
      ServerSettings shown;
      shown.redis.persistence = p;
      const std::string label =
          "async replica promoted, " + durability_label(ServerKind::redis, shown);
      add_parts(r, play_unstarved([&] { return one_part(redis_promotion_on(*s, o, p)); },
                                  one_part(shape_of(*s, label)), kStarvedRetries,
                                  progress_of(scenario, o)));
    }
  }
  return r;
}

// The port of the PostgreSQL socket in `dir` (its .s.PGSQL.<port>); throws Error when none.
int postgres_socket_port(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(".s.PGSQL.") && !name.ends_with(".lock")) return std::stoi(name.substr(9));
  }
  throw Error(fmt::format("no PostgreSQL socket in {}", dir));
}

// Waits (at most 30 s) until the standby, its link down, has replayed all it will: its replay
// position unchanged over 300 ms. (Its received position may end inside a record it never
// replays, so the two are not compared.) What it holds then is what it is promoted with.
void await_standby_settled(Server& standby) {
  const std::int64_t deadline = plumbing::monotonic_ns() + 30'000'000'000;
  std::string last = standby.query("SELECT pg_last_wal_replay_lsn()");
  for (int same = 0; same < 3;) {
    if (plumbing::monotonic_ns() > deadline) {
      throw Error("the standby's replay did not settle within 30 s of its link going down");
    }
    plumbing::throw_if_interrupted();
    ::usleep(100'000);
    const std::string now = standby.query("SELECT pg_last_wal_replay_lsn()");
    same = now == last ? same + 1 : 0;
    last = now;
  }
}

// The sequence postgres-sequence hands out from (the adapter's `sequence --cache 1`).
constexpr const char* kPostgresSequence = "ids_cache1";

// PostgreSQL's asynchronous streaming standby (a second postmaster made by pg_basebackup -R,
// replicating through a relay of the primary's unix socket): the link cut, the primary killed
// with -9 a second later, the standby promoted (pg_promote()), the clients (libpq given both,
// target_session_attrs=read-write) moving to it.
FaultPart postgres_promotion_on(const RealSystem& sys, const FaultOptions& o,
                                const std::string& sync) {
  Stage st("postgres-standby-promotion", o);
  ServerSettings base;
  base.postgres.synchronous_commit = sync;
  RunningSystem primary(sys, base);
  FaultPart part = part_of(sys, primary);
  part.label = "async standby promoted, " + durability_label(ServerKind::postgres, base);
  st.begin(part.records, 1);
  // The scheme's objects exist on the primary before the standby copies it.
  {
    external::Program warm(primary.exec_spec(), 1);
    std::vector<Id> ids;
    warm.request(1, ids);
  }
  const std::string primary_dir = primary.servers().at(0)->socket();
  LinkRelay relay = LinkRelay::postgres(primary_dir, postgres_socket_port(primary_dir),
                                        plumbing::unprivileged_user_if_root());
  PostgresSettings standby_settings = base.postgres;
  standby_settings.standby_of = relay.dir();
  PostgresServer standby(standby_settings);
  ClientPool pool(with_replica(primary, standby), o.clients, one_server);
  std::string replayed;
  const Promotion how{
      .master = "primary postgres",
      .replica = "standby",
      .held_by = fmt::format("{}.last_value, logged up to 32 values ahead", kPostgresSequence),
      .promote = "pg_promote()",
      .settle_and_read =
          [&] {
            await_standby_settled(standby);
            replayed = standby.query("SELECT pg_last_wal_replay_lsn()");
            return std::stoull(
                standby.query(fmt::format("SELECT last_value FROM {}", kPostgresSequence)));
          },
      .promote_it = [&] { standby.query("SELECT pg_promote()"); }};
  promote_after_cut(st, part, pool, relay, *primary.servers().at(0), standby, how);
  part.verdict.findings.push_back(
      fmt::format("the standby had replayed the primary's WAL up to {} when promoted", replayed));
  add_gap_finding(part);
  return part;
}

FaultRun postgres_standby_promotion(const FaultOptions& o) {
  const char* scenario = "postgres-standby-promotion";
  FaultRun r{scenario, "", {}, {}};
  for (const RealSystem* s : systems_for(scenario, {"postgres-sequence"}, o)) {
    for (const std::string& sync : o.synchronous_commit) {
      const std::string label = "async standby promoted, synchronous_commit=" + sync;
      add_parts(r, play_unstarved([&] { return one_part(postgres_promotion_on(*s, o, sync)); },
                                  one_part(shape_of(*s, label)), kStarvedRetries,
                                  progress_of(scenario, o)));
    }
  }
  return r;
}

// Instagram's next_id() repeats an ID only when a ms the stepped clock lives again meets the
// same nextval() % 1024. The arithmetic, from the ms the IDs carry and how many IDs were issued
// in between (each took one nextval()), never from their sequence bits: a ms in which `a` IDs
// were issued before the step took `a` consecutive residues from r; when the clock lives it
// again, d nextval()s later, its `b` IDs take `b` residues from r + d (mod 1024); they collide
// where the two arcs overlap. So a step of S s at R IDs/s repeats IDs only when R·S mod 1024 is
// within the IDs of one ms of a multiple of 1024.
double predicted_instagram_duplicates(const FaultPart& p, std::int64_t step_ns) {
  const Layout instagram = Layout::parse("instagram", std::numeric_limits<std::int64_t>::max());
  std::vector<const IssuedId*> by_time;
  for (const IssuedId& s : p.records.ids) by_time.push_back(&s);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const IssuedId* x, const IssuedId* y) { return x->mono_ns < y->mono_ns; });
  struct Ms {
    std::int64_t first_before = -1, first_after = -1;  // positions in issue order
    std::int64_t before = 0, after = 0;
  };
  std::map<std::int64_t, Ms> per_ms;
  for (std::size_t i = 0; i < by_time.size(); ++i) {
    Ms& m = per_ms[instagram.decode(by_time[i]->id.lo).tick];
    const bool before = by_time[i]->true_ns < step_ns;
    std::int64_t& first = before ? m.first_before : m.first_after;
    if (first < 0) first = static_cast<std::int64_t>(i);
    ++(before ? m.before : m.after);
  }
  double expected = 0;
  for (const auto& [tick, m] : per_ms) {
    if (m.before == 0 || m.after == 0) continue;
    const std::int64_t d = (m.first_after - m.first_before) % 1024;
    // Overlap of [0, before) and [d, d + after) on a circle of 1024.
    for (const std::int64_t shift : {d, d - 1024}) {
      expected += static_cast<double>(std::max<std::int64_t>(
          0, std::min(m.before, shift + m.after) - std::max<std::int64_t>(0, shift)));
    }
  }
  return expected;
}

// One part of postgres-clock-back: `sys` on a PostgreSQL started on the faked clock, its wall
// clock stepped back `step_s` while `clients` clients ask (the rate), probed before and after.
FaultPart postgres_clock_back_once(const RealSystem& sys, const FaultOptions& o, double step_s,
                                   unsigned clients) {
  Stage st("postgres-clock-back", o);
  ServerClockNemesis clock(o.clock_injector);
  if (const auto user = plumbing::unprivileged_user_if_root()) clock.give_to(*user);
  ServerSettings base;
  base.postgres.env = clock.env();
  base.postgres.launcher = clock.launcher();  // ptrace: postgres under the injector from start
  FaultOptions at_rate = o;
  at_rate.clients = clients;
  UnderLoad u(st, sys, base, at_rate);
  FaultRecords& r = u.part.records;
  u.part.label =
      fmt::format("step back {} s, {} client{}", step_s, clients, clients == 1 ? "" : "s");
  r.probes.push_back(probe_clock(u.server(0)));
  // The ms a step back lives again are those of the last `step_s` before it: served for the
  // step and 1 s more before it (whatever the time scale), so that the window after the step
  // meets issued ms.
  st.hold((step_s + 1.0) / o.time_scale, "serving", {u.pool.get()});
  st.await_issuing(*u.pool, {}, "before the step");
  const std::int64_t step_ns =
      st.play(clock,
              {.op = "step",
               .step_ns = -seconds_ns(step_s),
               .what = fmt::format("postgres's wall clock stepped back {} s", step_s)},
              {&r});
  r.probes.push_back(probe_clock(u.server(0)));
  const std::vector<std::uint64_t> at_step = u.pool->ids_per_client();
  st.hold(std::min(step_s, 3.0), "serving with the clock behind", {u.pool.get()});
  st.await_issuing(*u.pool, at_step, "after the step");
  r.probes.push_back(probe_clock(u.server(0)));
  FaultPart& p = u.collect(st);
  p.verdict = judge_uuid_clock_back(p, step_ns, step_s);
  const double seconds = static_cast<double>(r.stop_mono_ns - r.start_mono_ns) / 1e9;
  p.verdict.findings.push_back(fmt::format("rate: {:.0f} IDs/s from {} client{}",
                                           static_cast<double>(p.figures.ids) / seconds, clients,
                                           clients == 1 ? "" : "s"));
  if (p.layout == "instagram") {
    p.verdict.findings.push_back(fmt::format(
        "predicted duplicates (a repeated ms meeting the same nextval % 1024, from the ms the "
        "IDs carry and the IDs issued in between): {:.0f}; measured: {}",
        predicted_instagram_duplicates(p, step_ns), p.figures.duplicates));
  }
  return std::move(p);
}

// Instagram's next_id() and uuid_generate_v1() under a server clock stepped back, per step and
// rate.
FaultRun postgres_clock_back(const FaultOptions& o) {
  const char* scenario = "postgres-clock-back";
  // The ptrace injector runs as the server's user, which cannot open the root-owned clock page:
  // no part is played, each says so (never a fall back to libfaketime, never "kept").
  const bool unreachable =
      o.clock_injector == chaos::ClockInjector::ptrace && plumbing::unprivileged_user_if_root();
  FaultRun r{scenario, "", {}, {}};
  for (const RealSystem* s :
       systems_for(scenario, {"postgres-instagram-next-id", "postgres-uuid-v1"}, o)) {
    for (const double step : o.clock_steps_s) {
      for (const unsigned clients : o.rate_clients) {
        if (unreachable) {
          FaultPart p = shape_of(*s, fmt::format("step back {} s, {} clients", step, clients));
          p.verdict = {fault::Outcome::fault_not_applied,
                       "--clock-injector ptrace: postgres runs as nobody when idbench is root, "
                       "and the injector under it cannot open idbench's clock page (use "
                       "libfaketime)",
                       {}};
          r.parts.push_back(std::move(p));
          continue;
        }
        add_parts(
            r, play_unstarved(
                   [&] { return one_part(postgres_clock_back_once(*s, o, step, clients)); },
                   one_part(shape_of(*s, fmt::format("step back {} s, {} clients", step, clients))),
                   kStarvedRetries, progress_of(scenario, o)));
      }
    }
  }
  return r;
}

struct Entry {
  FaultScenario about;
  FaultRun (*run)(const FaultOptions&);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {{"ticket-restore",
        "a ticket server restored from a copy of its data directory taken earlier: its counter "
        "goes back (the ticket server's NTP step); the duplicates must be caught"},
       ticket_restore},
      {{"ticket-server-down",
        "one server of the ticket pair killed with -9 and restarted: availability, and how far "
        "the two streams drift apart in order"},
       ticket_server_down},
      {{"auto-increment-kill9",
        "kill -9 and restart of mariadbd under AUTO_INCREMENT load, per "
        "innodb_flush_log_at_trx_commit: is any value handed out twice?"},
       auto_increment_kill9},
      {{"postgres-kill9",
        "kill -9 of postgres under nextval() and IDENTITY load and crash recovery from the WAL, "
        "per synchronous_commit: gaps expected, is any value handed out twice?"},
       postgres_kill9},
      {{"postgres-restore",
        "PostgreSQL restored from a pg_basebackup taken while it served: its sequence goes back, "
        "nextval() and Instagram's next_id() hand out values again"},
       postgres_restore},
      {{"redis-kill9",
        "kill -9 of redis-server under INCR load and its restart, per persistence (appendfsync "
        "always, everysec, RDB only): values handed out twice?"},
       redis_kill9},
      {{"redis-kill9-disk-busy",
        "kill -9 of redis-server while its background AOF fsync is stalled, as on a busy disk, "
        "per appendfsync (always, everysec): acknowledged writes still in its AOF buffer are "
        "lost, and their values handed out again"},
       redis_kill9_disk_busy},
      {{"postgres-standby-promotion",
        "the link to PostgreSQL's asynchronous streaming standby cut, the primary killed with -9 "
        "a second later and the standby promoted: its sequence hands out again what it never "
        "received"},
       postgres_standby_promotion},
      {{"redis-replica-promotion",
        "the link to Redis's asynchronous replica cut, the master killed with -9 a second later "
        "and the replica promoted (REPLICAOF NO ONE): INCR values it never received are handed "
        "out again"},
       redis_replica_promotion},
      {{"uuid-clock-back",
        "mariadbd's wall clock stepped back 5 s while it serves UUID() and UUID_SHORT(): "
        "started under libfaketime, or (--clock-injector ptrace) the running server attached "
        "by idbench-inject"},
       uuid_clock_back},
      {{"postgres-clock-back",
        "postgres's wall clock stepped back (1 and 5 s; --steps) at two rates while it serves "
        "Instagram's next_id() and uuid_generate_v1(): duplicates beside the arithmetic's "
        "prediction"},
       postgres_clock_back},
      {{"uuid-short-restart-behind",
        "mariadbd restarted with its clock back at its first start's second: UUID_SHORT() "
        "takes its high bits from the start time"},
       uuid_short_restart_behind},
  };
  return e;
}

}  // namespace

ClockProbe probe_clock(Server& server) {
  ClockProbe best;
  std::int64_t narrowest = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < kProbeTries && narrowest > kProbeRoundTripNs; ++i) {
    const std::int64_t before = plumbing::true_ns();
    const double server_s = server.clock_unix_s();
    const std::int64_t after = plumbing::true_ns();
    if (after - before >= narrowest) continue;
    narrowest = after - before;
    const std::int64_t middle = before / 2 + after / 2;
    best = {middle, server_s * 1e3 - static_cast<double>(middle) / 1e6, 0};
  }
  best.server_pid = server.pid();
  return best;
}

std::vector<FaultPart> play_unstarved(const std::function<std::vector<FaultPart>()>& play,
                                      std::vector<FaultPart> starved, int retries,
                                      const fault::Timeline& progress) {
  std::string who = "the part";
  if (!starved.empty()) {
    const FaultPart& p = starved.front();
    who = p.label.empty() ? p.system : p.system + " " + p.label;
  }
  struct Attempt {
    std::vector<FaultPart> parts;
    std::optional<std::string> starved;  // MachineStarved's line
  };
  const auto attempt = [&play]() -> Attempt {
    try {
      return {play(), std::nullopt};
    } catch (const MachineStarved& e) {
      return {{}, e.what()};
    }
  };
  fault::Retried<Attempt> r = fault::play_while_spoiled(
      attempt, [](const Attempt& a) { return a.starved; }, retries,
      [&](const std::string& why, int n, bool last) {
        progress.say(fmt::format("{}: {} (attempt {} of {}){}", who, why, n, retries + 1,
                                 last ? "" : "; playing it again"));
      });
  const std::vector<std::string>& why = r.set_aside;
  if (r.spoiled) {
    for (FaultPart& p : starved) {
      p.verdict = {fault::Outcome::machine_starved,
                   fmt::format("all {} attempts starved, no verdict about the system: {}",
                               why.size(), why.back()),
                   why};
    }
    return starved;
  }
  std::vector<FaultPart> parts = std::move(r.result.parts);
  for (FaultPart& p : parts) {
    if (why.empty()) break;
    p.verdict.findings.push_back(
        fmt::format("retried {} time{}: the machine starved the clients before ({})", why.size(),
                    why.size() == 1 ? "" : "s", why.front()));
  }
  return parts;
}

const std::vector<FaultScenario>& fault_scenarios() {
  static const std::vector<FaultScenario> s = [] {
    std::vector<FaultScenario> out;
    for (const Entry& e : entries()) out.push_back(e.about);
    return out;
  }();
  return s;
}

std::string why_not_runnable(std::string_view name, const FaultOptions& options) {
  const auto rdb = [](RedisPersistence p) { return p == RedisPersistence::rdb; };
  if (name == "redis-kill9-disk-busy" && std::ranges::all_of(options.redis_persistence, rdb)) {
    return "redis-kill9-disk-busy stalls the append-only file's fsync: --redis-persistence "
           "names neither always nor everysec";
  }
  return "";
}

FaultRun run_fault_scenario(std::string_view name, const FaultOptions& options) {
  for (const Entry& e : entries()) {
    if (e.about.name != name) continue;
    if (const std::string why = why_not_runnable(name, options); !why.empty()) throw Error(why);
    FaultRun r = e.run(options);
    r.description = e.about.summary;
    r.verdict = overall_verdict(r);
    return r;
  }
  std::string names;
  for (const Entry& e : entries()) names += (names.empty() ? "" : ", ") + e.about.name;
  throw Error(fmt::format("unknown fault scenario '{}' (scenarios: {}, all)", name, names));
}

}  // namespace idbench::real
