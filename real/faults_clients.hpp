// faults_clients.hpp — the load of a fault scenario: client node processes
// (`idbench-real-client`, client_node.hpp), one per client, in one fault::Fleet. Each runs its
// own adapter (external::Program) and asks it for one ID per round trip, as an application
// asks its ID service; a failed request is recorded, the adapter is started again after a
// short pause (the application retries), and the run goes on.
//
//   ClientPool pool(spec, 2, server_of);     // the nodes start at once (each says "ready")
//   ... play the fault; pool.await_ids(...), pool.ids() ...
//   pool.stop_into(records);                 // stopped; every ID and failure appended
//
// Each node writes its history (fault/history.hpp: one fault::Record per ID or failed
// request, CLOCK_REALTIME and CLOCK_MONOTONIC stamped by raw system calls in the client right
// after the reply) to a record file in the pool's directory; the pool counts the records as
// they are written (reading each file on from where it stopped, whole records only) and reads
// them all at the stop. The adapters' stderr is captured, one file per client
// (external/stderr_capture.hpp), and read into the records when the pool stops: their summary
// lines ("retries= deadlocks= failovers=") become FaultRecords::adapter_stderr.counters.
//
// Nothing is left behind: the fleet kills every node still running when the pool is destroyed
// (an exception, plumbing::Interrupted), the nodes die with this process (PR_SET_PDEATHSIG),
// and an adapter dies with its node (a contained child, plumbing/child_process.hpp).
//
// Thread safety: thread-compatible, and used from one thread that outlives it (the scenario's):
// the nodes' parent-death signal is tied to the thread that started them (fault/fleet.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "external/program.hpp"
#include "fault/fleet.hpp"
#include "plumbing/temp_dir.hpp"
#include "real/faults.hpp"

namespace idbench::real {

// Which server issued an ID (the ticket pair: odd IDs come from server 0, even from 1).
using ServerOf = std::function<std::uint16_t(const Id&)>;

class ClientPool {
 public:
  // `first_client` numbers the clients (and their node ids, first_client + k + 1) so that
  // several pools in one scenario keep distinct client numbers. Throws Error when
  // idbench-real-client is not beside this executable or a node does not start.
  ClientPool(const external::ExecSpec& spec, unsigned clients, ServerOf server_of,
             std::uint16_t first_client = 0);
  ~ClientPool();  // kills every node still running (what was gathered is dropped)
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  // Progress counts, from the records the nodes have written so far. Each call reads what was
  // written since the last one, and fails (fault::Fleet::check) when a node ended by itself.
  std::uint64_t ids() const;
  std::uint64_t failures() const;
  // How many IDs each client has received so far.
  std::vector<std::uint64_t> ids_per_client() const;
  // Waits until every client has received `need` IDs more than `since` (ids_per_client()
  // taken earlier; empty: from the start); false at `deadline_mono_ns`, or at once when the
  // pool has no clients. Throws plumbing::Interrupted after a signal.
  bool await_ids(const std::vector<std::uint64_t>& since, std::uint64_t need,
                 std::int64_t deadline_mono_ns) const;

  // Stops the nodes (EOF on their stdin: a request under way is answered or times out first)
  // and appends what they recorded to `records`, their adapters' stderr among it. Throws the
  // fleet's Error when a node failed or did not stop by spec.timeout_ms + 5 s.
  void stop_into(FaultRecords& records);

 private:
  // What has been read of one node's record file.
  struct Tally {
    std::uint64_t offset = 0;
    std::uint64_t ids = 0;
    std::uint64_t failures = 0;
  };
  void count_new_records() const;
  void append_node(int k, FaultRecords& records) const;
  fault::NodeLaunch launch(int node, int incarnation) const;
  std::string adapter_stderr_path(int node) const;

  external::ExecSpec spec_;
  ServerOf server_of_;
  std::uint16_t first_client_;
  std::string client_binary_;
  plumbing::TempDir dir_;  // the nodes' records and stderr, the adapters' stderr
  // Mutable: counting (const) checks the nodes and reads on in their files. Declared after
  // dir_, so the nodes are gone before their directory is removed.
  mutable fault::Fleet fleet_;
  mutable std::vector<Tally> tallies_;
};

}  // namespace idbench::real
