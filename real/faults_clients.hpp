// faults_clients.hpp — the load of a fault scenario: client threads, each running its own
// adapter (external::Program) and asking it for one ID per round trip, as an application
// asks its ID service. A failed request is recorded, the adapter is started again after a
// short pause (the application retries), and the run goes on.
//
//   ClientPool pool(spec, 2, server_of);     // threads start at once
//   ... play the fault ...
//   pool.stop_into(records);                 // join; every ID and failure appended
//
// Each reply is stamped with CLOCK_REALTIME and CLOCK_MONOTONIC by raw system calls
// (plumbing/raw_time.hpp) right after it arrives. The adapters' stderr is captured, one file per
// client (external/stderr_capture.hpp), and read into the records when the pool stops: their
// summary lines ("retries= deadlocks= failovers=") become FaultRecords::adapter_stderr.counters.
//
// Thread safety: construct, count and stop from one thread (the scenario's). Each client
// thread creates and destroys its own Program, so the parent-death signal of every adapter
// is tied to a thread that outlives it (plumbing/child_process.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "external/program.hpp"
#include "plumbing/temp_dir.hpp"
#include "real/faults.hpp"

namespace idbench::real {

// Which server issued an ID (the ticket pair: odd IDs come from server 0, even from 1).
using ServerOf = std::function<std::uint16_t(const Id&)>;

class ClientPool {
 public:
  // `first_client` numbers the clients (and their node ids, first_client + k + 1) so that
  // several pools in one scenario keep distinct client numbers.
  ClientPool(const external::ExecSpec& spec, unsigned clients, ServerOf server_of,
             std::uint16_t first_client = 0);
  ~ClientPool();  // stops and joins (what was gathered is dropped)
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  // Progress counters (relaxed: read for progress lines only).
  std::uint64_t ids() const { return ids_.load(std::memory_order_relaxed); }
  std::uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }
  // How many IDs each client has received so far.
  std::vector<std::uint64_t> ids_per_client() const;
  // Waits until every client has received `need` IDs more than `since` (ids_per_client()
  // taken earlier; empty: from the start); false at `deadline_mono_ns`, or at once when the
  // pool has no clients. Throws plumbing::Interrupted after a signal.
  bool await_ids(const std::vector<std::uint64_t>& since, std::uint64_t need,
                 std::int64_t deadline_mono_ns) const;

  // Stops the clients, joins them and appends what they gathered to `records`, their
  // adapters' stderr among it. Rethrows the first exception a client met that was not a
  // failed request (Interrupted, ...).
  void stop_into(FaultRecords& records);

 private:
  struct Client {
    std::vector<IssuedId> ids;
    std::vector<FailedRequest> failures;
    std::uint64_t requests = 0;
    std::exception_ptr error;
    std::atomic<std::uint64_t> received{0};  // ids.size(), readable from the pool's thread
  };
  void run(std::size_t index);
  void one_program(std::size_t index, Client& c);
  void join();
  std::string stderr_path(std::size_t index) const;

  external::ExecSpec spec_;
  plumbing::TempDir stderr_dir_;  // client k's adapters append their stderr to client-k.stderr
  std::vector<external::ExecSpec> client_specs_;  // spec_, stderr captured
  ServerOf server_of_;
  std::uint16_t first_client_;
  // The stop flag: release in join() pairs with the acquire loads in the client loops.
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> ids_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<std::thread> threads_;
};

}  // namespace idbench::real
