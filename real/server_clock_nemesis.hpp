// server_clock_nemesis.hpp — the faked wall clock of real servers, as a fault::Nemesis: one
// clock every server put on it reads, stepped by the UUID scenarios (uuid-clock-back,
// uuid-short-restart-behind), one record per step with the faked time it left
// (fault::FaultRecord::faked_ns), as chaos::ClockNemesis does for chaos nodes. Two injectors
// (chaos/clock_injector.hpp), chosen at construction:
//
//   libfaketime  a timestamp file; a server reads it when started with env() (LD_PRELOAD);
//   ptrace       a shared clock page (inject/clock_page.hpp), kept armed by a lease while this
//                object lives; a running server reads it once idbench-inject is attached to it
//                (ServerClockAttachment, server_clock_attach.hpp), a server started with
//                launcher() before its argv reads it from its first instruction.
//
//   ServerClockNemesis clock(ClockInjector::libfaketime);  // at true time
//   MariadbSettings s;  s.env = clock.env();  s.launcher = clock.launcher();
//   MariadbServer db(s);                    // its SYSDATE() reads the faked clock
//   clock.invoke({.op = "step", .step_ns = -5'000'000'000, .kind = "fault",
//                 .what = "the servers' wall clock stepped back 5 s"}, t);
//       // every server's wall clock is now 5 s behind true time; one record, its faked_ns
//       // the servers' wall time right after the write
//
// Verb: "step" (the clock jumps by step_ns). The clock is a chaos::ClockModel of rate 1, written
// with chaos::write_setting (libfaketime: the setting does not depend on when libfaketime
// started in each server, so no calibration, unlike a chaos node) or ClockPage::set_line
// (ptrace); a server started after a step reads the stepped clock at once. A step is recorded
// once, for kNoNode (every server reads the one clock), at `step.at` if given, else at the
// instant the write landed: from then on the servers read the stepped clock. Only
// CLOCK_REALTIME is faked (libfaketime: DONT_FAKE_MONOTONIC=1; the page never moves
// MONOTONIC): an NTP step never moves the monotonic clock either.
//
// No teardown: the servers end with the run, and putting the clock back would be a step they
// see without a record. (Under ptrace a server still attached when this object dies reads true
// time again within one lease: the page's dead man's switch.)
//
// Thread safety: thread-compatible; played from the scenario's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chaos/clock_injector.hpp"
#include "chaos/faketime.hpp"
#include "fault/nemesis.hpp"
#include "inject/clock_page.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::real {

class ServerClockNemesis : public fault::Nemesis {
 public:
  // The clock at true time, in a private directory. Throws idbench::Error naming the package to
  // install when libfaketime is missing, or when idbench-inject is not beside this executable;
  // idbench::Refused (exit 3) when this process may not trace another (ptrace_scope).
  explicit ServerClockNemesis(chaos::ClockInjector injector = chaos::ClockInjector::libfaketime);
  ~ServerClockNemesis() override;
  chaos::ClockInjector injector() const { return injector_; }
  // The KEY=VALUE entries that put a server on this clock (MariadbSettings::env): libfaketime's
  // preload, its timestamp file and the traps chaos/faketime.hpp handles; none under ptrace.
  const std::vector<std::string>& env() const { return env_; }
  // Under ptrace, what a server's argv is run under to read this clock from its first
  // instruction: {idbench-inject, --page, PATH, --}; empty under libfaketime.
  std::vector<std::string> launcher() const;
  // Under ptrace, the page's path for `idbench-inject --page` (empty under libfaketime).
  std::string page_path() const;
  // Lets servers that run as `user` (PostgreSQL runs as nobody when idbench is root) read this
  // clock: under libfaketime its directory and the FAKETIME_SHARED semaphore and segment become
  // the user's (this process, root, still reaches them); under ptrace nothing to do.
  void give_to(const plumbing::RunAs& user);
  // The private directory (the injectors' stderr files go there).
  const std::string& dir() const { return dir_.path(); }
  std::string_view kind() const override { return "clock"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // The servers' faked wall time (Unix ns) at true time `true_ns`.
  std::int64_t fake_at(std::int64_t true_ns) const { return clock_.fake_at(true_ns); }

 private:
  void write() const;

  chaos::ClockInjector injector_;
  plumbing::TempDir dir_;
  std::string file_;
  std::vector<std::string> env_;
  chaos::ClockModel clock_;
  std::string inject_;                               // ptrace: idbench-inject's path
  std::unique_ptr<inject::ClockPage> page_;          // ptrace: the page ...
  std::unique_ptr<inject::ClockPage::Lease> lease_;  // ... kept armed; destroyed first
};

}  // namespace idbench::real
