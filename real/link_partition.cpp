// link_partition.cpp — a replication link through a relay, and its partition (see
// link_partition.hpp).
#include "real/link_partition.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>

#include <stdexcept>

#include "plumbing/free_ports.hpp"
#include "plumbing/raw_time.hpp"
#include "real/server.hpp"

namespace idbench::real {

namespace {

constexpr const char* kSocatMissing =
    "socat is not installed: a replication link's partition relays the link through it (the "
    "Debian package socat: apt-get install --no-install-recommends socat; ./run.sh installs it)";

}  // namespace

LinkRelay LinkRelay::tcp(int target_port) {
  const int port = plumbing::free_loopback_ports(1, "a replication link's relay").front();
  return {fmt::format("TCP-LISTEN:{},bind=127.0.0.1,reuseaddr,fork", port),
          fmt::format("TCP:127.0.0.1:{}", target_port),
          fmt::format("127.0.0.1:{} → 127.0.0.1:{}", port, target_port),
          std::make_unique<plumbing::TempDir>("idbench-relay"), port};
}

LinkRelay LinkRelay::postgres(const std::string& target_dir, int port,
                              const std::optional<plumbing::RunAs>& user) {
  auto dir = std::make_unique<plumbing::TempDir>("idbench-relay", user);
  // The standby's user enters it to reach the socket; it holds nothing else of note.
  ::chmod(dir->path().c_str(), 0755);
  const std::string socket = fmt::format("/.s.PGSQL.{}", port);
  return {fmt::format("UNIX-LISTEN:{}{},fork,mode=777", dir->path(), socket),
          fmt::format("UNIX-CONNECT:{}{}", target_dir, socket),
          fmt::format("{}{} → {}{}", dir->path(), socket, target_dir, socket), std::move(dir), 0};
}

LinkRelay::LinkRelay(const std::string& listen, const std::string& target, std::string describe,
                     std::unique_ptr<plumbing::TempDir> dir, int port)
    : dir_(std::move(dir)), port_(port), describe_(std::move(describe)) {
  const std::string socat = plumbing::find_program("socat");
  if (socat.empty()) throw ServerMissing(kSocatMissing);
  const std::string log = dir_->path() + "/socat.log";
  plumbing::ChildSpec spec;
  spec.argv = {socat, "-d", "-d", listen, target};
  spec.err = plumbing::Stdio::file(log);
  spec.contain = true;
  child_ = std::make_unique<plumbing::ChildProcess>(spec);
  const std::int64_t until = plumbing::monotonic_ns() + 10'000'000'000;
  while (plumbing::read_text_file(log).find("listening on") == std::string::npos) {
    if (!child_->running() || child_->try_wait() || plumbing::monotonic_ns() > until) {
      throw Error(
          fmt::format("the relay {} did not listen: {}", describe_, plumbing::read_text_file(log)));
    }
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + 5'000'000);
  }
}

LinkRelay::~LinkRelay() { drop(); }

void LinkRelay::stop_relaying() {
  if (!running()) throw Error(fmt::format("the relay {} has ended", describe_));
  ::kill(-child_->pid(), SIGSTOP);
}

void LinkRelay::drop() {
  if (child_ != nullptr && child_->running()) child_->kill_and_reap();
}

void LinkPartitionNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  const fault::Instant at = step.at.value_or(fault::Instant::now());
  if (step.op == "partition") {
    relay_.stop_relaying();
  } else if (step.op == "drop") {
    relay_.drop();
  } else {
    throw std::logic_error(fmt::format("the link nemesis does not play '{}'", step.op));
  }
  t.record_at(at, fault::kNoNode, step.kind, step.what);
}

}  // namespace idbench::real
