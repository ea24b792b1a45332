// faults_judge.hpp — what each fault scenario's figures mean: the verdict and the evidence it
// rests on. Pure functions of a part's records and figures, and of the instants (true ns) the
// scenario played its fault, so that a test can plant a defect and see the verdict fail.
//
// Every verdict needs evidence: a scenario whose fault did not show (a probe that did not
// move, a killed server that still answered) is "fault not applied"; one without IDs on both
// sides of the fault is "no evidence". Both fail: 0 duplicates from 0 IDs proves nothing.
// An ID handed out twice is DUPLICATES; a server pair that failed requests is "unavailable";
// what passes is "kept" (or "available", for the availability scenario).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>

#include "real/faults.hpp"

namespace idbench::real {

// The step back the UUID scenario plays on the servers' wall clock.
inline constexpr double kUuidStepBackS = 5.0;

// IDs issued with true time in [from_ns, to_ns), optionally by one server.
std::uint64_t ids_between(const FaultRecords& r, std::int64_t from_ns, std::int64_t to_ns,
                          std::optional<std::uint16_t> server = std::nullopt);

struct SkewRange {
  double min_ms = 0;
  double max_ms = 0;
};
// Embedded time − true time of the IDs issued in [from_ns, to_ns); nullopt when none carries
// a time. IdTime::layout IDs decode by `layout` (none given: they carry no time to read).
std::optional<SkewRange> skew_between(const FaultRecords& r, IdTime id_time, std::int64_t from_ns,
                                      std::int64_t to_ns, const std::string& layout = "");

// ticket-restore: server 0 copied at `copied_ns`, restored and started at `restored_ns`.
fault::Verdict judge_ticket_restore(const FaultPart& p, std::int64_t copied_ns,
                                    std::int64_t restored_ns);
// ticket-server-down: server 1 killed at `killed_ns` and restarted at `restart_ns` (it may
// answer before its restart is confirmed: the window ends when the restart begins).
fault::Verdict judge_ticket_server_down(const FaultPart& p, std::int64_t killed_ns,
                                        std::int64_t restart_ns);
// auto-increment-kill9: killed at `killed_ns`, recovered at `back_ns`.
fault::Verdict judge_kill9(const FaultPart& p, std::int64_t killed_ns, std::int64_t back_ns);
// uuid-clock-back: the wall clock stepped back `step_s` at `step_ns`. The probes are read in
// order: the first before the step, the rest after it.
fault::Verdict judge_uuid_clock_back(const FaultPart& p, std::int64_t step_ns, double step_s);
// uuid-short-restart-behind: restarted `behind_s` behind, answering at `back_ns`; the probes
// after the restart must show it.
fault::Verdict judge_restart_behind(const FaultPart& p, std::int64_t back_ns, double behind_s);

// The scenario's verdict: the first failing part's, or "kept" when every part passed.
fault::Verdict overall_verdict(const FaultRun& run);

}  // namespace idbench::real
