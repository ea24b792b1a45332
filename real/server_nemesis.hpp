// server_nemesis.hpp — a real server's crash as a fault::Nemesis: the server (mariadbd,
// postgres, redis-server) killed with -9, and started again through its crash recovery. The
// other faults of a real server are its siblings: a data directory restored from a copy
// (snapshot_nemesis.hpp) and a clock stepped under libfaketime (server_clock_nemesis.hpp); the
// scenarios play all three the same way
// (faults.hpp).
//
//   ServerCrashNemesis crash(server);
//   crash.invoke({.op = "kill", .kind = "fault", .what = "kill -9 of mariadbd"}, t);
//   ...                                    // load without it
//   crash.invoke({.op = "start", .kind = "fault", .what = "mariadbd restarting"}, t);
//       // returns once it answers again: its record is at the instant the restart began
//
// Verbs: "kill" (SIGKILL, no shutdown) and "start" (on its data directory, until it answers;
// nothing when it runs). Each step is recorded once, for kNoNode (a server is not a fleet's
// node), at the instant it began: the judges measure a crash from the kill and a recovery
// from the start of the restart. That the server answers again is the harness's observation,
// recorded by the caller when invoke() returns (kind "harness" in the scenarios).
//
// Thread safety: thread-compatible; the server is the scenario's, on its thread (the clients
// only talk to it).
#pragma once

#include "fault/nemesis.hpp"
#include "real/server.hpp"

namespace idbench::real {

class ServerCrashNemesis : public fault::Nemesis {
 public:
  explicit ServerCrashNemesis(Server& server) : server_(server) {}
  std::string_view kind() const override { return "server"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // Starts the server again if a kill left it down.
  void teardown(fault::Timeline& t) override;

 private:
  Server& server_;
};

}  // namespace idbench::real
