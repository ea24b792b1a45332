// server_clock_nemesis.cpp — the real servers' faked wall clock, stepped (see
// server_clock_nemesis.hpp): libfaketime's timestamp file or the ptrace injector's page.
#include "real/server_clock_nemesis.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "chaos/clock_drive.hpp"
#include "plumbing/error.hpp"

namespace idbench::real {
namespace {

// The entries of chaos's node environment that fake a clock; the rest of it is this
// process's own environment, which the server inherits anyway.
std::vector<std::string> faking_entries(const std::string& file) {
  std::vector<std::string> out;
  for (const std::string& e : chaos::node_environment(file, chaos::find_libfaketime())) {
    const std::string key = e.substr(0, e.find('='));
    if (key == "LD_PRELOAD" || key.starts_with("FAKETIME") || key == "DONT_FAKE_MONOTONIC" ||
        key == "TZ") {
      out.push_back(e);
    }
  }
  return out;
}

// True time, anchored now: the model computes in doubles from its anchor, so an anchor near
// the instants it is read at keeps it exact to the ns (anchored at 0, 1.8e18 ns away, it is not).
chaos::ClockModel true_time() {
  const std::int64_t now = fault::Instant::now().true_ns;
  return {now, now};
}

// Who else may have to read the clock's directory: the user PostgreSQL runs as when this
// process is root (give_to); none when there is no such user (nor a PostgreSQL that runs).
std::optional<plumbing::RunAs> possible_reader() {
  try {
    return plumbing::unprivileged_user_if_root();
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Whether this process holds CAP_SYS_PTRACE (bit 19 of CapEff in /proc/self/status).
bool may_trace_any() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("CapEff:", 0) == 0) {
      return (std::stoull(line.substr(7), nullptr, 16) >> 19) & 1u;
    }
  }
  return geteuid() == 0;
}

// Refuses (exit 3, never a fall back to libfaketime) when Yama forbids tracing a server this
// process did not start: ptrace_scope 3 forbids every attach, 1 and 2 all but the privileged's.
void refuse_without_ptrace() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  if (!(in >> scope) || scope == 0) return;  // no Yama: the injector's attach says the rest
  if (scope < 3 && may_trace_any()) return;
  throw Refused(fmt::format(
      "--clock-injector ptrace: this process may not trace the servers (kernel.yama.ptrace_scope "
      "is {}{}); run as root, or with --clock-injector libfaketime",
      scope, scope < 3 ? " and it lacks CAP_SYS_PTRACE" : ": no process may attach"));
}

}  // namespace

ServerClockNemesis::ServerClockNemesis(chaos::ClockInjector injector)
    : injector_(injector), dir_("idbench-faults", possible_reader()), clock_(true_time()) {
  if (injector_ == chaos::ClockInjector::ptrace) {
    refuse_without_ptrace();
    inject_ = chaos::inject_program();
    page_ = std::make_unique<inject::ClockPage>();
  } else {
    file_ = dir_.path() + "/faketime";
    env_ = faking_entries(file_);
  }
  write();
  if (page_) lease_ = std::make_unique<inject::ClockPage::Lease>(*page_);
}

ServerClockNemesis::~ServerClockNemesis() = default;

void ServerClockNemesis::give_to(const plumbing::RunAs& user) {
  if (injector_ != chaos::ClockInjector::libfaketime) return;
  dir_.give_to(user.uid, user.gid);
  // FAKETIME_SHARED="/SEM /SHM": POSIX names, files in /dev/shm (a semaphore's as sem.NAME).
  for (const std::string& e : env_) {
    if (!e.starts_with("FAKETIME_SHARED=")) continue;
    std::istringstream names(e.substr(16));
    std::string sem, shm;
    names >> sem >> shm;
    for (const std::string& path : {"/dev/shm/sem." + sem.substr(1), "/dev/shm/" + shm.substr(1)}) {
      if (::chown(path.c_str(), user.uid, user.gid) != 0) {
        throw Error(fmt::format("cannot give libfaketime's {} to the server's user", path));
      }
    }
  }
}

std::vector<std::string> ServerClockNemesis::launcher() const {
  if (!page_) return {};
  return {inject_, "--page", page_->path(), "--"};
}

std::string ServerClockNemesis::page_path() const { return page_ ? page_->path() : ""; }

void ServerClockNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  if (step.op != "step") {
    throw std::logic_error(fmt::format("the server clock nemesis does not play '{}'", step.op));
  }
  // At rate 1 the anchor of a step does not change the offset; it only dates the jump.
  clock_.step(step.at ? step.at->true_ns : fault::Instant::now().true_ns, step.step_ns);
  write();
  const fault::Instant landed = fault::Instant::now();
  t.record_at(step.at.value_or(landed), fault::kNoNode, step.kind, step.what,
              clock_.fake_at(landed.true_ns));
}

// libfaketime: the library's start time in the server is irrelevant at rate 1 (see the
// header), 0 stands for any. ptrace: the page holds the line itself.
void ServerClockNemesis::write() const {
  if (page_) {
    page_->set_line(clock_.anchor_true(), clock_.anchor_fake(), clock_.rate());
  } else {
    chaos::write_setting(file_, clock_.setting_for(0));
  }
}

}  // namespace idbench::real
