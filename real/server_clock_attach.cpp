// server_clock_attach.cpp — idbench-inject attached to a running server and detached from it
// (server_clock_attach.hpp).
#include "real/server_clock_attach.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "plumbing/error.hpp"
#include "plumbing/exit_codes.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kInjectorWaitNs = 30'000'000'000;

// The last non-empty line of `text`.
std::string last_line_of(const std::string& text) {
  std::size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const std::size_t from = text.rfind('\n', end);
  return text.substr(from == std::string::npos ? 0 : from + 1,
                     end - (from == std::string::npos ? 0 : from + 1) + 1);
}

}  // namespace

long traced_by(pid_t pid) {
  std::error_code ec;
  const std::string dir = fmt::format("/proc/{}/task", pid);
  long highest = -1;
  for (const auto& thread : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(thread.path() / "status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("TracerPid:", 0) == 0) highest = std::max(highest, std::stol(line.substr(10)));
    }
  }
  return highest;
}

ServerClockAttachment::ServerClockAttachment(const ServerClockNemesis& clock, pid_t pid,
                                             std::string who)
    : pid_(pid),
      who_(std::move(who)),
      err_path_(fmt::format("{}/inject-{}.err", clock.dir(), pid)) {
  if (clock.page_path().empty()) throw Error("ServerClockAttachment needs a ptrace clock");
  plumbing::ChildSpec spec;
  spec.argv = {clock.launcher().front(), "--page", clock.page_path(), "--pid", std::to_string(pid)};
  spec.out = plumbing::Stdio::pipe();
  spec.err = plumbing::Stdio::file(err_path_);
  injector_ = std::make_unique<plumbing::ChildProcess>(spec);
  const auto line = injector_->read_line(plumbing::monotonic_ns() + kInjectorWaitNs);
  if (line && *line == fmt::format("attached {}", pid)) return;
  if (!line) {
    // It ended (EOF) or said nothing in time: its status says which.
    const auto status = injector_->wait_until(plumbing::monotonic_ns() + 1'000'000'000);
    if (status == kExitRefused) throw Refused(failure("refused to attach"));
    if (status) throw Error(failure(fmt::format("exited {} before attaching", *status)));
  }
  injector_->kill_and_reap();
  throw Error(failure(line ? fmt::format("said '{}', not 'attached {}'", one_line(*line), pid)
                           : "did not attach within 30 s"));
}

ServerClockAttachment::~ServerClockAttachment() {
  try {
    detach();
  } catch (const std::exception&) {
    // The run already fails with what went wrong first; the injector is reaped either way.
  }
}

void ServerClockAttachment::detach() {
  if (!injector_) return;
  std::unique_ptr<plumbing::ChildProcess> injector = std::move(injector_);
  const int status = injector->stop(kInjectorWaitNs, SIGTERM);
  if (status != 0) throw Error(failure(fmt::format("exited {} at the detach", status)));
  if (const long tracer = traced_by(pid_); tracer > 0) {
    throw Error(fmt::format("{} (pid {}) is still traced by pid {} after idbench-inject detached",
                            who_, pid_, tracer));
  }
}

// "idbench-inject on mariadbd (pid 123) <what>: <its last stderr line>".
std::string ServerClockAttachment::failure(std::string_view what) const {
  const std::string said = last_line_of(plumbing::read_text_file(err_path_));
  return fmt::format("idbench-inject on {} (pid {}) {}{}{}", who_, pid_, what,
                     said.empty() ? "" : ": ", one_line(said));
}

}  // namespace idbench::real
