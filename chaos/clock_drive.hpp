// clock_drive.hpp — how a chaos node's faked clock is written where its processes read it:
// libfaketime's timestamp file, or the ptrace injector's shared page. The driver and the clock
// nemesis move a node's ClockModel; the drive is the one place that knows how the model
// reaches the node.
//
//   std::unique_ptr<ClockDrive> drive = make_clock_drive(ClockInjector::ptrace, dir, nodes);
//   fault::NodeLaunch l = drive->launch(k, argv);   // the node's argv and environment
//   drive->before_start(n, restarted);              // what it reads until its "ready"
//   drive->ready(n, t, f);                          // its "ready T F"
//   drive->write(n, n.clock);                       // from now on it reads this model
//
// libfaketime: the setting depends on when libfaketime started in the node's process, so a
// node starts on a calibration setting and its "ready" reveals that instant (faketime.hpp).
// ptrace: the page holds the model itself (clock_page.h), read the same way by every process of
// the node's tree whenever it started, so there is nothing to calibrate; each page is kept
// armed by a lease for as long as the drive lives, and a killed idbench's nodes read true time
// again within one lease.
//
// Thread safety: thread-compatible; the driver's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chaos/clock_injector.hpp"
#include "chaos/clock_nemesis.hpp"
#include "fault/fleet.hpp"

namespace idbench::chaos {

class ClockDrive {
 public:
  virtual ~ClockDrive() = default;
  virtual ClockInjector injector() const = 0;
  // Node k's launch, from the node's own argv.
  virtual fault::NodeLaunch launch(const NodeClock& n, std::vector<std::string> argv) const = 0;
  // Before node n starts: true time on a first start, its machine's clock on a restart.
  virtual void before_start(NodeClock& n, bool restarted) = 0;
  // Its "ready T F": true and faked time read at one instant.
  virtual void ready(NodeClock& n, std::int64_t true_ns, std::int64_t fake_ns) = 0;
  // From the next clock read on, node n's processes read `model`.
  virtual void write(const NodeClock& n, const ClockModel& model) = 0;
};

// The ptrace injector's path: $IDBENCH_INJECT if set (a test's stand-in), else idbench-inject
// beside this executable (real-chaos's server clock uses it too).
std::string inject_program();

// `dir` holds the run's files (libfaketime's timestamp files); `nodes` nodes. Throws
// idbench::Error when the injector's parts are missing (libfaketime not installed,
// idbench-inject not beside this executable).
std::unique_ptr<ClockDrive> make_clock_drive(ClockInjector injector, const std::string& dir,
                                             int nodes);

}  // namespace idbench::chaos
