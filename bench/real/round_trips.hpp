// round_trips.hpp — one cell of the real-system bench: T clients, each with its own instance of
// an external generator program (its own adapter process, its own database connection), asking
// for R IDs per request for a fixed time after a warm-up; every round trip timed.
//
//   CellPlan plan{.clients = 8, .request_size = 1};
//   CellFigures f = measure_cell(spec, plan);     // spec: external::ExecSpec of the program
//   f.ids_per_s();  f.latency_ns.value_at_quantile(0.99);
//
// A round trip is one Program::request(): "R\n" written, R lines read, on the monotonic clock.
// Only requests that start inside the measuring window count; the window runs from the first
// such request's start to the last one's end, over all clients. A client whose requests are
// slower than the window goes on until it has counted one (so the window stretches).
//
// Each client's stderr is captured (external/stderr_capture.hpp), so the summary line an
// adapter prints at EOF ("NAME: retries=3 deadlocks=0 failovers=1") is
// read back: its counters, summed over the clients, are the cell's adapter_counters (nullopt
// when no client printed one: unknown). Other stderr lines are kept in stderr_lines.
//
// The system's own share: each client's program gets $IDBENCH_SYSTEM_TIMES, a file where a
// program that can time itself writes, at EOF, one line per answered request: the ns it spent
// in the system for it (the server's round trips; a library's calls), without the pipe hop to
// the harness (docs/exec-protocol.md). The counted requests' times become system_side; a
// program that writes nothing (or too little) leaves it nullopt.
//
// measure_sessions() is the window itself, over any Session: measure_cell() drives programs,
// bench/real/direct.hpp a database client in this process.
//
// A client whose program fails (ProgramError: exits, hangs, prints a bad line) stops the cell:
// every client stops, the first failure is `error`, the figures gathered so far are kept.
// A signal (plumbing::InterruptGuard) stops the cell too; measure_cell then throws Interrupted.
//
// Measuring only: no formatting here (run_json.hpp does that).
//
// Thread safety: measure_cell may be called from one thread at a time per program spec; it
// starts plan.clients threads of its own and joins them before it returns.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/histogram.hpp"
#include "external/program.hpp"
#include "external/stderr_capture.hpp"

namespace idbench::realbench {

struct CellPlan {
  int clients = 1;
  std::uint64_t request_size = 1;
  std::int64_t warmup_ns = 500'000'000;
  std::int64_t duration_ns = 2'000'000'000;
  std::uint64_t first_node_id = 0;  // client k runs with node id first_node_id + k
};

// What the programs timed themselves (IDBENCH_SYSTEM_TIMES), over the counted requests.
struct SystemSide {
  double ids_per_s = 0;                // Σ over clients of its IDs ÷ its time in the system
  bench::LatencyHistogram latency_ns;  // one entry per counted request: its time in the system
};

struct CellFigures {
  int clients = 0;
  std::uint64_t request_size = 0;
  double seconds = 0;          // the measuring window (0 when no request counted)
  std::uint64_t ids = 0;       // IDs received in counted requests
  std::uint64_t requests = 0;  // counted requests
  bench::LatencyHistogram latency_ns;  // one entry per counted request: its round trip
  std::vector<std::uint64_t> ids_per_client;
  int failed_clients = 0;  // clients whose program failed
  std::string error;       // the first failure; empty when none
  std::optional<external::Counters> adapter_counters;
  std::vector<std::string> stderr_lines;  // other stderr lines of the programs (capped)
  std::optional<SystemSide> system_side;  // nullopt: a program did not time itself

  double ids_per_s() const { return seconds > 0 ? static_cast<double>(ids) / seconds : 0; }
  double ids_per_s_per_client() const { return clients > 0 ? ids_per_s() / clients : 0; }
};

// The environment variable naming a program's file of per-request system times.
inline constexpr const char* kSystemTimesEnv = "IDBENCH_SYSTEM_TIMES";

// One client's way to the system.
class Session {
 public:
  virtual ~Session() = default;
  // One round trip: asks for n IDs; returns how many arrived. Throws on failure.
  virtual std::uint64_t request(std::uint64_t n) = 0;
};
// Makes client k's session, in client k's own thread (a program it starts is tied to it).
using SessionFactory = std::function<std::unique_ptr<Session>(int client)>;

// Which of a client's requests were counted: indexes first … first + count - 1, from 0.
struct Counted {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

// The window over plan.clients sessions: every figure but adapter_counters, stderr_lines and
// system_side. `counted` (when given) gets each client's counted requests. Throws as
// measure_cell.
CellFigures measure_sessions(const SessionFactory& make, const CellPlan& plan,
                             std::vector<Counted>* counted = nullptr);

// Throws Error for a plan that cannot run (clients < 1, request_size 0 or above
// external::kMaxRequest, a negative duration); plumbing::Interrupted after a signal.
CellFigures measure_cell(const external::ExecSpec& spec, const CellPlan& plan);

// "NAME: key=N key=N …" → {key: N} (external/stderr_capture.hpp).
using external::parse_counter_line;

}  // namespace idbench::realbench
