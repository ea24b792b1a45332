// clock_drive.cpp — a chaos node's faked clock written where its processes read it
// (clock_drive.hpp): libfaketime's timestamp file, or the ptrace injector's page.
#include "chaos/clock_drive.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "chaos/faketime.hpp"
#include "inject/clock_page.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::chaos {
namespace {

std::size_t at(const NodeClock& n) { return static_cast<std::size_t>(n.index); }

// libfaketime: a timestamp file per node, and when libfaketime started in its process.
class FaketimeDrive : public ClockDrive {
 public:
  FaketimeDrive(const std::string& dir, int nodes) : libfaketime_(find_libfaketime()) {
    for (int k = 0; k < nodes; ++k) {
      files_.push_back(fmt::format("{}/node-{}.faketime", dir, k));
      lib_start_.push_back(0);
    }
  }
  ClockInjector injector() const override { return ClockInjector::libfaketime; }

  fault::NodeLaunch launch(const NodeClock& n, std::vector<std::string> argv) const override {
    return {std::move(argv), node_environment(files_[at(n)], libfaketime_), {}};
  }
  // Until its "ready" the node reads the calibration clock, which reveals libfaketime's start.
  void before_start(NodeClock& n, bool /*restarted*/) override {
    write_setting(files_[at(n)], kCalibrationSetting);
  }
  void ready(NodeClock& n, std::int64_t true_ns, std::int64_t fake_ns) override {
    lib_start_[at(n)] = lib_start_from_calibration(true_ns, fake_ns);
  }
  void write(const NodeClock& n, const ClockModel& model) override {
    write_setting(files_[at(n)], model.setting_for(lib_start_[at(n)]));
  }

 private:
  std::string libfaketime_;
  std::vector<std::string> files_;
  std::vector<std::int64_t> lib_start_;
};

// The node's environment under the tracer. LeakSanitizer stops a process's threads with ptrace
// to scan them at exit, which a traced process cannot allow ("LeakSanitizer does not work under
// ptrace"), and an ASan build of a node would fail at its end: leak checking is off in the
// traced tree (every other sanitizer check stays on; a build without ASan ignores the entry).
std::vector<std::string> traced_environment() {
  std::vector<std::string> env = environment_without_faketime();
  for (std::string& entry : env) {
    if (entry.starts_with("ASAN_OPTIONS=")) {
      entry += ":detect_leaks=0";
      return env;
    }
  }
  env.emplace_back("ASAN_OPTIONS=detect_leaks=0");
  return env;
}

// ptrace: a page per node, each node's tree under idbench-inject, which maps the page into
// every process it traces through this process's descriptor of it.
class PtraceDrive : public ClockDrive {
 public:
  explicit PtraceDrive(int nodes) : inject_(inject_program()) {
    for (int k = 0; k < nodes; ++k) {
      pages_.push_back(std::make_unique<inject::ClockPage>());
      leases_.push_back(std::make_unique<inject::ClockPage::Lease>(*pages_.back()));
    }
  }
  ClockInjector injector() const override { return ClockInjector::ptrace; }

  fault::NodeLaunch launch(const NodeClock& n, std::vector<std::string> argv) const override {
    std::vector<std::string> wrapped = {inject_, "--page", pages_[at(n)]->path(), "--"};
    wrapped.insert(wrapped.end(), std::make_move_iterator(argv.begin()),
                   std::make_move_iterator(argv.end()));
    return {std::move(wrapped), traced_environment(), {}};
  }
  // The page is the clock itself: the node reads its clock from its first instruction on.
  void before_start(NodeClock& n, bool restarted) override {
    const std::int64_t now = plumbing::true_ns();
    write(n, restarted ? n.clock : ClockModel(now, now));
  }
  void ready(NodeClock& /*n*/, std::int64_t /*true_ns*/, std::int64_t /*fake_ns*/) override {}
  void write(const NodeClock& n, const ClockModel& model) override {
    pages_[at(n)]->set_line(model.anchor_true(), model.anchor_fake(), model.rate());
  }

 private:
  std::string inject_;
  std::vector<std::unique_ptr<inject::ClockPage>> pages_;
  std::vector<std::unique_ptr<inject::ClockPage::Lease>> leases_;  // destroyed before the pages
};

}  // namespace

std::string inject_program() {
  const char* path = std::getenv("IDBENCH_INJECT");
  return path != nullptr && *path != '\0' ? std::string(path)
                                          : plumbing::program_beside_self("idbench-inject");
}

std::unique_ptr<ClockDrive> make_clock_drive(ClockInjector injector, const std::string& dir,
                                             int nodes) {
  if (injector == ClockInjector::ptrace) return std::make_unique<PtraceDrive>(nodes);
  return std::make_unique<FaketimeDrive>(dir, nodes);
}

}  // namespace idbench::chaos
