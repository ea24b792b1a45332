// node.hpp — one chaos node: a process that runs one generator variant from T threads under
// a faked wall clock and records every call's outcome with its true time.
//
// The driver (driver.hpp) starts `idbench-chaos-node` under LD_PRELOAD of libfaketimeMT with
// this node's own FAKETIME_TIMESTAMP_FILE, and talks to it over stdin/stdout:
//
//   node   -> driver   "ready <true_ns> <fake_ns>"   after set-up, one reading of the oracle
//                                                    and of the faked clock (calibration)
//   driver -> node     "arm"                        once the node's run clock is written
//   node   -> driver   "armed"                      after its first durable reservation
//                                                    (--persist; nothing to do otherwise)
//   driver -> node     "go <start_mono_ns> <stop_mono_ns>"
//
// Arming: a node with a persisted high-water mark stores its first reservation before the
// run starts, and the driver chooses the start once every node is armed. An fsync on a busy
// disk can take most of a second; made by the first ID's clock reading, it would delay the
// first IDs past the scenario's first fault and leave that fault without evidence. A
// restarted node arms too: a write it needs before issuing is part of its down time.
//
// Calibration: libfaketime applies a rate to the time elapsed since *its* start in this
// process, which only the process can observe. The driver writes the calibration setting
// "+0 x2" before starting the node, so fake - true = (true - start) and the driver learns the
// start exactly; it then rewrites the file so the node's clock follows the scenario. Without
// this, a rate change (ntp-slew, leap-smear) would also step the clock by up to
// |rate - 1| × (start-up time): a backward step in a scenario that promises none.
//
// Between start and stop each thread calls next() at its share of `rate` (or flat out),
// pushes one Record per call into its own Boost.Lockfree SPSC queue, and a writer thread
// drains the queues into one file per thread every millisecond (record.hpp). Refusals are
// records too: nothing a generator does is dropped.
//
// External program (`exec`): each thread runs its own instance of the program
// (external::Program, node id node_id + t), started before "ready" and asked for one ID (not
// recorded) between "go" and the start time, so that its start-up is not part of the run and
// its first clock reading is on the run's clock; then it asks for exec->batch IDs whenever its
// last answer is used up. (Before "go" the driver has the node's clock read true time, never
// the calibration's ×2: a program reading the clock at start-up would see 2083 and wrap.)
// The program is the node's child and inherits its environment (LD_PRELOAD, FAKETIME_*): a
// dynamically linked program reading the clock through libc sees the node's faked clock. Its
// libfaketime start equals the node's: every process sharing the driver's FAKETIME_SHARED
// segment (zero-filled, faketime.hpp) takes its start time from there, so the driver's
// calibration holds for the program too and rate scenarios apply to it unchanged. A program
// that exits or misbehaves ends the node with status 2 and the program's error, which also goes
// to node-<k>.inc-<i>.program-error for the driver to report as the program's. It dies with
// the node: its parent-death signal follows the thread that started it (plumbing/
// child_process.hpp), which lives until its loop ends, and a kill -9 of the node kills it.
//
// Probe: when a built-in variant's IDs carry no time (`probe`), one more thread reads the
// node's own faked clock through libc every millisecond, with the true time beside it, into
// node-<k>.inc-<i>.probe (record.hpp): the fault check's evidence that each clock fault
// reached the clock the variant reads (fault_check.hpp). Never for a program.
//
// Thread safety: run_node is the body of a process; call it once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "external/program.hpp"

namespace idbench::chaos {

struct NodeConfig {
  std::string variant;
  std::string layout = "twitter";
  std::string policy = "refuse";
  std::uint64_t node_id = 0;
  int node_index = 0;   // k in the run's file names
  int incarnation = 0;  // i in the run's file names
  unsigned threads = 2;
  double rate = 0;  // IDs per second for the whole node; 0 = flat out
  std::string out_dir;
  std::string persist_dir;  // empty: no high-water mark
  std::int64_t reserve_ms = 1000;
  std::int64_t slow_store_ms = 0;  // a planted slow disk (tests): added to each durable write
  bool probe = false;  // read the faked clock every ms (see above)
  // An external program instead of `variant` (see above).
  std::optional<external::ExecSpec> exec;
};

// Runs the protocol above. Returns the process exit status: 0 after a clean stop, 2 when the
// configuration is refused (message on stderr), 3 on an I/O failure.
int run_node(const NodeConfig& config);

}  // namespace idbench::chaos
