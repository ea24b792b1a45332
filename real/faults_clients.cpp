// faults_clients.cpp — client threads asking adapters for one ID per round trip.
#include "real/faults_clients.hpp"

#include <algorithm>

#include "external/stderr_capture.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::real {
namespace {

// After a failed request the client waits this long before it starts a new adapter: long
// enough not to spin on a server that is down, short enough to see it come back promptly.
constexpr std::int64_t kRetryPauseNs = 20'000'000;

// A failure message is kept short: the first line of the adapter's error is enough.
std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

ClientPool::ClientPool(const external::ExecSpec& spec, unsigned clients, ServerOf server_of,
                       std::uint16_t first_client)
    : spec_(spec),
      stderr_dir_("idbench-faults-stderr"),
      server_of_(std::move(server_of)),
      first_client_(first_client) {
  for (unsigned i = 0; i < clients; ++i) {
    clients_.push_back(std::make_unique<Client>());
    client_specs_.push_back(external::capturing_stderr(spec_, stderr_path(i)));
  }
  for (unsigned i = 0; i < clients; ++i) threads_.emplace_back([this, i] { run(i); });
}

ClientPool::~ClientPool() { join(); }

void ClientPool::join() {
  // Pairs with the acquire loads in run() and one_program().
  stop_.store(true, std::memory_order_release);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void ClientPool::run(std::size_t index) {
  Client& c = *clients_[index];
  try {
    while (!stop_.load(std::memory_order_acquire) && !plumbing::interrupted()) {
      one_program(index, c);
      if (stop_.load(std::memory_order_acquire)) break;
      plumbing::sleep_until_mono(plumbing::monotonic_ns() + kRetryPauseNs);
    }
  } catch (...) {
    c.error = std::current_exception();
  }
}

// One adapter's life: requests until it fails or the pool stops. A failure is recorded.
void ClientPool::one_program(std::size_t index, Client& c) {
  const auto client = static_cast<std::uint16_t>(first_client_ + index);
  std::vector<Id> got;
  bool asked = false;  // a request was sent to this adapter and not yet answered
  try {
    external::Program program(client_specs_[index], client + 1u);
    while (!stop_.load(std::memory_order_acquire)) {
      got.clear();
      ++c.requests;
      asked = true;
      program.request(1, got);
      asked = false;
      const std::int64_t t = plumbing::true_ns();
      const std::int64_t m = plumbing::monotonic_ns();
      for (const Id& id : got) c.ids.push_back({id, t, m, client, server_of_(id)});
      ids_.fetch_add(got.size(), std::memory_order_relaxed);
      c.received.store(c.ids.size(), std::memory_order_relaxed);
    }
  } catch (const external::ProgramError& e) {
    if (plumbing::interrupted()) throw plumbing::Interrupted();
    if (!asked) ++c.requests;  // the adapter could not start: that request failed too
    const std::string message =
        external::unwrapped(e.what(), client_specs_[index].command, spec_.command);
    c.failures.push_back(
        {plumbing::true_ns(), plumbing::monotonic_ns(), client, first_line(message)});
    failures_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::vector<std::uint64_t> ClientPool::ids_per_client() const {
  std::vector<std::uint64_t> out;
  for (const auto& c : clients_) out.push_back(c->received.load(std::memory_order_relaxed));
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

std::string ClientPool::stderr_path(std::size_t index) const {
  return stderr_dir_.path() + "/client-" + std::to_string(index) + ".stderr";
}

void ClientPool::stop_into(FaultRecords& records) {
  join();
  std::exception_ptr error;
  for (auto& c : clients_) {
    records.ids.insert(records.ids.end(), c->ids.begin(), c->ids.end());
    records.failures.insert(records.failures.end(), c->failures.begin(), c->failures.end());
    records.requests += c->requests;
    if (c->error && !error) error = c->error;
  }
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    external::read_captured_stderr(stderr_path(i), records.adapter_stderr);
  }
  clients_.clear();
  threads_.clear();
  if (error) std::rethrow_exception(error);
}

}  // namespace idbench::real
