// client_node.hpp — one client of a real-chaos scenario as a node process
// (`idbench-real-client`): it runs its adapter (external::Program) and asks it for one ID per
// round trip, as an application asks its ID service, and records every reply and every failed
// request in the fault history (fault/history.hpp). real::ClientPool starts one per client in
// a fault::Fleet and reads what they record.
//
//   idbench-real-client --index 0 --client 2 --out-dir DIR --adapter-stderr DIR/client-0.stderr
//                       --layout twitter --env IDBENCH_MARIADB_SOCKETS=/tmp/a.sock
//                       --exec '/path/idbench-mariadb-adapter ticket' --id-time none ...
//   → "ready" on stdout once its files are open; EOF on stdin stops it (exit 0).
//
// The loop: start the adapter with node id client + 1 and its stderr appended to the
// adapter-stderr file (external/stderr_capture.hpp), ask it for 1 ID per request until a
// request fails (external::ProgramError: it exited, hung past its timeout, answered garbage or
// could not start); then a 20 ms pause and a new adapter (the application retries). Between
// requests the node looks at stdin without waiting; an answer being awaited is awaited.
//
// What it writes, in DIR (k = index, i = incarnation):
//   node-<k>.inc-<i>.thread-0.rec   one fault::Record per reply (RecordKind::id: hi, lo the ID)
//                                   or failed request (RecordKind::failed_request: lo the line
//                                   of its message in the messages file), stamped with
//                                   CLOCK_REALTIME and CLOCK_MONOTONIC by raw system calls right
//                                   after the reply (or the failure), in this process, so the
//                                   harness adds no hop to an ID's time; call_us is the round
//                                   trip. One write(2) per record, no buffer: a reader sees each
//                                   record as soon as it is issued, and a kill -9 cuts none.
//   node-<k>.inc-<i>.messages       one line per failed request: the first line of its error.
//
// Thread safety: run_client_node() is the body of a process; call it once.
#pragma once

#include <cstdint>
#include <string>

#include "external/program.hpp"

namespace idbench::real {

struct ClientNodeConfig {
  int index = 0;        // the node's index in its fleet: its file names
  int incarnation = 0;  // its incarnation: its file names
  std::uint16_t client = 0;  // the client's number; its adapters' node id is client + 1
  std::string out_dir;
  std::string adapter_stderr;  // the adapters' stderr is appended here
  external::ExecSpec exec;     // the adapter (its env included)
};

// Returns the exit status: 0 after EOF on stdin, 3 when its files cannot be written (message on
// stderr).
int run_client_node(const ClientNodeConfig& config);

}  // namespace idbench::real
