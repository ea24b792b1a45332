// faketime.hpp — driving libfaketime (Debian 12: 0.9.10) from outside a process, and the
// traps of libfaketime (the node environment below) handled in one place.
//
// Each node has a machine clock, modelled here as a line: fake(t) = anchor_fake +
// rate·(t − anchor_true), t being true time. A step moves the anchor; a rate change re-anchors
// at the current value so the clock does not jump. The model is written to the node's
// FAKETIME_TIMESTAMP_FILE as the setting libfaketime reads on every call (FAKETIME_NO_CACHE=1):
// "+OFFSET xRATE", the offset in seconds.
//
// libfaketime computes fake = t + (rate − 1)·(t − s) + offset, where s is when libfaketime
// started in that process. So the offset that makes a process follow the model depends on s;
// the node reports s through calibration (node.hpp), and `setting_for` uses it. A restarted
// node has a new s; the model — the machine's clock — carries on unchanged.
//
// The environment of a node (`node_environment`):
//   LD_PRELOAD=libfaketimeMT.so.1  the MT build serialises its clock state between threads
//   FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1   re-read the setting on every call
//   DONT_FAKE_MONOTONIC=1           a faked monotonic clock hangs condition_variable::wait_for
//                                   in 0.9.10 and would step steady_clock back
//   TZ=UTC                          no time-zone file lookups under a faked clock
//   FAKETIME unset                  it would silently override the timestamp file
//   FAKETIME_SHARED="SEM SHM"       a semaphore + shared-memory pair this process owns: without
//                                   it libfaketime creates /dev/shm/faketime_{sem,shm}_<pid>
//                                   in every node and a node killed with -9 leaves them behind
//                                   (plumbing/leftovers.hpp sweeps what a killed driver leaves)
//   ASAN_OPTIONS += verify_asan_link_order=0   a sanitizer build must accept the preload
//
// Thread safety: ClockModel is a value; FaketimeShared is process-wide and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::chaos {

// The setting written before a node starts, so its calibration reading reveals s: with
// offset 0 and rate 2, fake − true = true − s.
inline constexpr std::string_view kCalibrationSetting = "+0 x2";
inline constexpr double kCalibrationRate = 2.0;

// s from one calibration reading (true and fake read at the same instant).
std::int64_t lib_start_from_calibration(std::int64_t true_ns, std::int64_t fake_ns);

class ClockModel {
 public:
  ClockModel() = default;
  ClockModel(std::int64_t anchor_true_ns, std::int64_t anchor_fake_ns)
      : anchor_true_(anchor_true_ns), anchor_fake_(anchor_fake_ns) {}

  std::int64_t fake_at(std::int64_t true_ns) const;
  double rate() const { return rate_; }
  std::int64_t anchor_true() const { return anchor_true_; }
  std::int64_t anchor_fake() const { return anchor_fake_; }

  void step(std::int64_t at_true_ns, std::int64_t delta_ns);
  void set_rate(std::int64_t at_true_ns, double rate);
  // A rate change about to be written to a file a process is reading: the process keeps the
  // old rate until the write lands, up to `max_write_delay_ns` after `now_true_ns`. A slower
  // rate is anchored that much later, a faster one at `now_true_ns`, so whenever the write
  // lands the clock jumps forward (by at most |Δrate|·delay), never back: a step back of even
  // 30 µs crosses a millisecond boundary now and then, and `refuse` would refuse it.
  void change_rate(std::int64_t now_true_ns, double rate, std::int64_t max_write_delay_ns);

  // The libfaketime setting that makes a process whose libfaketime started at
  // `lib_start_true_ns` read this clock.
  std::string setting_for(std::int64_t lib_start_true_ns) const;

 private:
  std::int64_t anchor_true_ = 0;
  std::int64_t anchor_fake_ = 0;
  double rate_ = 1.0;
};

// Writes `setting` to `path` atomically (a temp file beside it, then rename): libfaketime
// re-reads the file on every call, and must never see it half-written.
void write_setting(const std::string& path, std::string_view setting);

// The preload library: $IDBENCH_LIBFAKETIME if set, else the multiarch locations Debian uses.
// Throws idbench::Error naming the package to install when none exists.
std::string find_libfaketime();

// The semaphore + shared-memory pair every node of this process shares (see above). Created
// on first use, unlinked at exit (and by plumbing::sweep_leftovers() if this process dies
// without exiting).
class FaketimeShared {
 public:
  static FaketimeShared& instance();
  const std::string& env_value() const { return env_value_; }  // "SEM SHM"
  void unlink();
  ~FaketimeShared() { unlink(); }

 private:
  FaketimeShared();
  std::string sem_name_;
  std::string shm_name_;
  std::string env_value_;
  bool linked_ = false;
};

// The environment of a node: the current environment with the entries above set or removed.
std::vector<std::string> node_environment(const std::string& timestamp_file,
                                          const std::string& libfaketime);
// The environment of a node whose clock is not libfaketime's: the current one without any of
// libfaketime's entries (a preload inherited from the caller would fake the clock twice), and
// TZ=UTC as above.
std::vector<std::string> environment_without_faketime();

}  // namespace idbench::chaos
