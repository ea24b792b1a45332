// snapshot_nemesis.hpp — a real server's data directory taken back to an earlier copy, as a
// fault::Nemesis: ticket-restore's fault, a ticket server whose counter goes back (the ticket
// server's NTP step).
//
//   SnapshotNemesis restore(server);
//   restore.invoke({.op = "snapshot", .kind = "fault", .what = "snapshot of server 0"}, t);
//   ...                                    // the counter moves on
//   restore.invoke({.op = "restore", .kind = "fault", .what = "server 0 restored"}, t);
//       // stopped, its data directory replaced by the copy, started: the counter is back
//
// Verbs: "snapshot" (a cold copy of the data directory: the server is stopped for the copy and
// started again) and "restore" (clean stop, the latest copy put back, started until it
// answers; std::logic_error before any snapshot). Each step is recorded once, for kNoNode (a
// server is not a fleet's node): "snapshot" at the instant it began, when the server goes down
// for the copy; "restore" at the instant the copy is put back, after the clean stop, when the
// counter goes back. That the server serves again is the harness's observation, recorded by
// the caller when invoke() returns; the judge measures from those.
//
// Why the snapshot is a step and not set-up: the server is down while it is copied, and the
// clients see that outage; a history without it would show a gap in service nothing explains.
//
// Thread safety: thread-compatible; the server is the scenario's, on its thread (the clients
// only talk to it).
#pragma once

#include <string>

#include "fault/nemesis.hpp"
#include "real/server.hpp"

namespace idbench::real {

class SnapshotNemesis : public fault::Nemesis {
 public:
  explicit SnapshotNemesis(Server& server) : server_(server) {}
  std::string_view kind() const override { return "snapshot"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // Starts the server again if a step that failed left it down. Records nothing.
  void teardown(fault::Timeline& t) override;

 private:
  Server& server_;
  std::string copy_;  // the latest snapshot's path; empty before the first
};

}  // namespace idbench::real
