// server_clock_nemesis.hpp — the faked wall clock of real servers under libfaketime, as a
// fault::Nemesis: one timestamp file every server started with env() reads, stepped by the UUID
// scenarios (uuid-clock-back, uuid-short-restart-behind), one record per step with the faked
// time it left (fault::FaultRecord::faked_ns), as chaos::ClockNemesis does for chaos nodes.
//
//   ServerClockNemesis clock;               // the file, at true time
//   MariadbSettings s;  s.env = clock.env();
//   MariadbServer db(s);                    // its SYSDATE() reads the faked clock
//   clock.invoke({.op = "step", .step_ns = -5'000'000'000, .kind = "fault",
//                 .what = "the servers' wall clock stepped back 5 s"}, t);
//       // every server's wall clock is now 5 s behind true time; one record, its faked_ns
//       // the servers' wall time right after the write
//
// Verb: "step" (the clock jumps by step_ns). The clock is a chaos::ClockModel written with
// chaos::write_setting, the shared home of the libfaketime setting; its rate is always 1, so
// the setting does not depend on when libfaketime started in each server, and a server started
// after a step reads the stepped clock at once (no calibration, unlike a chaos node). A step
// is recorded once, for kNoNode (every server reads the one clock), at `step.at` if given,
// else at the instant the write landed: from then on the servers read the stepped clock.
// Only CLOCK_REALTIME is faked (DONT_FAKE_MONOTONIC=1): an NTP step never moves the monotonic
// clock either.
//
// No teardown: the servers end with the run, and putting the clock back would be a step they
// see without a record.
//
// Thread safety: thread-compatible; played from the scenario's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chaos/faketime.hpp"
#include "fault/nemesis.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::real {

class ServerClockNemesis : public fault::Nemesis {
 public:
  // Makes the timestamp file in a private directory, at true time. Throws idbench::Error
  // naming the package to install when libfaketime is missing.
  ServerClockNemesis();
  // The KEY=VALUE entries that put a server on this clock (MariadbSettings::env): the preload,
  // the timestamp file and the traps chaos/faketime.hpp handles.
  const std::vector<std::string>& env() const { return env_; }
  std::string_view kind() const override { return "clock"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // The servers' faked wall time (Unix ns) at true time `true_ns`.
  std::int64_t fake_at(std::int64_t true_ns) const { return clock_.fake_at(true_ns); }

 private:
  void write() const;

  plumbing::TempDir dir_;
  std::string file_;
  std::vector<std::string> env_;
  chaos::ClockModel clock_;
};

}  // namespace idbench::real
