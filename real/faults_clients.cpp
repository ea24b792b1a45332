// faults_clients.cpp — the client nodes of a fault scenario in one fleet, counted and collected
// from their record files (faults_clients.hpp).
#include "real/faults_clients.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "external/exec_options.hpp"
#include "external/stderr_capture.hpp"
#include "fault/history.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"
#include "real/client_node.hpp"

namespace idbench::real {
namespace {

// A client node opens two files and says "ready": seconds are plenty, even on a starved machine.
constexpr std::int64_t kClientReadyTimeoutNs = 15'000'000'000;
// At the stop, a node finishes the request under way (an adapter that hangs fails after its
// timeout) and closes its adapter (EOF, up to 2 s before SIGTERM): this long beyond the timeout.
constexpr std::int64_t kClientStopMarginNs = 5'000'000'000;
// The pool never restarts a node: each writes incarnation 0's files.
constexpr int kClientIncarnation = 0;
// The messages of a long outage (a failed request every 20 ms per client) fit many times over.
constexpr std::size_t kMaxMessagesBytes = std::size_t{64} << 20;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

ClientPool::ClientPool(const external::ExecSpec& spec, unsigned clients, ServerOf server_of,
                       std::uint16_t first_client)
    : spec_(spec),
      server_of_(std::move(server_of)),
      first_client_(first_client),
      client_binary_(plumbing::program_beside_self("idbench-real-client")),
      dir_("idbench-faults-clients"),
      fleet_([this](int node, int incarnation) { return launch(node, incarnation); },
             kClientReadyTimeoutNs),
      tallies_(clients) {
  for (int k = 0; k < static_cast<int>(clients); ++k) {
    const std::string first = fleet_.start(k);
    if (first != "ready") fleet_.fail(k, fmt::format("said '{}', not ready", first));
  }
}

ClientPool::~ClientPool() = default;  // the fleet kills and reaps every node still running

fault::NodeLaunch ClientPool::launch(int node, int incarnation) const {
  // Our environment, as the adapters had when they were threads' programs: no libfaketime,
  // the client's clock is true time. The adapter's own entries go as flags.
  std::vector<std::string> argv = {
      client_binary_,   "--index",          std::to_string(node),
      "--incarnation",  std::to_string(incarnation),
      "--client",       std::to_string(first_client_ + node),
      "--out-dir",      dir_.path(),
      "--adapter-stderr", adapter_stderr_path(node),
      "--layout",       spec_.layout};
  for (const std::string& e : spec_.env) argv.insert(argv.end(), {"--env", e});
  for (std::string& f : external::exec_flags(spec_)) argv.push_back(std::move(f));
  return {std::move(argv), std::nullopt,
          fmt::format("{}/node-{}.inc-{}.err", dir_.path(), node, incarnation)};
}

std::string ClientPool::adapter_stderr_path(int node) const {
  return fmt::format("{}/client-{}.stderr", dir_.path(), node);
}

void ClientPool::count_new_records() const {
  fleet_.check();  // a node that ended by itself would never count again: say so now
  for (int k = 0; k < fleet_.size(); ++k) {
    Tally& t = tallies_[static_cast<std::size_t>(k)];
    const std::string path =
        dir_.path() + "/" + fault::record_file_name(k, kClientIncarnation, 0);
    for (const fault::Record& r : fault::read_new_records(path, t.offset)) {
      t.ids += fault::is(r, fault::RecordKind::id) ? 1 : 0;
      t.failures += fault::is(r, fault::RecordKind::failed_request) ? 1 : 0;
    }
  }
}

std::uint64_t ClientPool::ids() const {
  count_new_records();
  std::uint64_t n = 0;
  for (const Tally& t : tallies_) n += t.ids;
  return n;
}

std::uint64_t ClientPool::failures() const {
  count_new_records();
  std::uint64_t n = 0;
  for (const Tally& t : tallies_) n += t.failures;
  return n;
}

std::vector<std::uint64_t> ClientPool::ids_per_client() const {
  count_new_records();
  std::vector<std::uint64_t> out;
  for (const Tally& t : tallies_) out.push_back(t.ids);
  return out;
}

bool ClientPool::await_ids(const std::vector<std::uint64_t>& since, std::uint64_t need,
                           std::int64_t deadline_mono_ns) const {
  for (;;) {
    plumbing::throw_if_interrupted();
    const std::vector<std::uint64_t> now = ids_per_client();
    bool all = !now.empty();
    for (std::size_t i = 0; i < now.size(); ++i) {
      all = all && now[i] >= (i < since.size() ? since[i] : 0) + need;
    }
    if (all) return true;
    const std::int64_t t = plumbing::monotonic_ns();
    if (t >= deadline_mono_ns) return false;
    plumbing::sleep_until_mono(std::min(deadline_mono_ns, t + 10'000'000));
  }
}

// Node k's records as the scenario's: IDs with their server, failures with their message.
void ClientPool::append_node(int k, FaultRecords& records) const {
  const std::string base = dir_.path() + "/";
  const auto client = static_cast<std::uint16_t>(first_client_ + k);
  const std::vector<std::string> messages = lines_of(plumbing::read_text_file(
      base + fault::messages_file_name(k, kClientIncarnation), kMaxMessagesBytes));
  for (const fault::Record& r :
       fault::read_records(base + fault::record_file_name(k, kClientIncarnation, 0))) {
    if (fault::is(r, fault::RecordKind::id)) {
      const Id id{r.hi, r.lo};
      records.ids.push_back({id, r.true_ns, r.mono_ns, client, server_of_(id)});
    } else if (fault::is(r, fault::RecordKind::failed_request)) {
      records.failures.push_back({r.true_ns, r.mono_ns, client,
                                  r.lo < messages.size() ? messages[r.lo] : "(message lost)"});
    } else {
      continue;
    }
    ++records.requests;  // one ID or one failure per request
  }
  external::read_captured_stderr(adapter_stderr_path(k), records.adapter_stderr);
}

void ClientPool::stop_into(FaultRecords& records) {
  fleet_.stop({.close_stdin = true,
               .deadline_mono_ns = plumbing::monotonic_ns() + spec_.timeout_ms * 1'000'000 +
                                   kClientStopMarginNs});
  for (int k = 0; k < fleet_.size(); ++k) append_node(k, records);
}

}  // namespace idbench::real
