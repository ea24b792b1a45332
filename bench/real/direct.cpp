// direct.cpp — a MariaDB scheme's Client called from this process's threads, one connection each.
#include "bench/real/direct.hpp"

#include <memory>

#include "adapters/mariadb/client.hpp"

namespace idbench::realbench {
namespace {

using mariadb_adapter::Client;
using mariadb_adapter::Counts;

class DirectSession final : public Session {
 public:
  DirectSession(const std::vector<std::string>& args, const std::vector<std::string>& sockets,
                Counts& counts)
      : client_(mariadb_adapter::parse_scheme(args), sockets), counts_(counts) {}
  ~DirectSession() override { counts_ = client_.counts(); }
  DirectSession(const DirectSession&) = delete;
  DirectSession& operator=(const DirectSession&) = delete;

  std::uint64_t request(std::uint64_t n) override {
    for (std::uint64_t i = 0; i < n; ++i) client_.next();
    return n;
  }

 private:
  Client client_;
  Counts& counts_;
};

}  // namespace

CellFigures measure_direct(const std::vector<std::string>& scheme_args,
                           const std::vector<std::string>& sockets, const CellPlan& plan) {
  std::vector<Counts> counts(static_cast<std::size_t>(std::max(plan.clients, 0)));
  CellFigures f = measure_sessions(
      [&](int k) {
        return std::make_unique<DirectSession>(scheme_args, sockets,
                                               counts[static_cast<std::size_t>(k)]);
      },
      plan);
  external::Counters sum{{"retries", 0}, {"deadlocks", 0}, {"failovers", 0}};
  for (const Counts& c : counts) {
    sum["retries"] += c.retries;
    sum["deadlocks"] += c.deadlocks;
    sum["failovers"] += c.failovers;
  }
  f.adapter_counters = std::move(sum);
  return f;
}

CellFigures combined(const CellFigures& a, const CellFigures& b) {
  CellFigures f = a;
  f.seconds += b.seconds;
  f.ids += b.ids;
  f.requests += b.requests;
  f.latency_ns.merge(b.latency_ns);
  for (std::size_t k = 0; k < f.ids_per_client.size() && k < b.ids_per_client.size(); ++k) {
    f.ids_per_client[k] += b.ids_per_client[k];
  }
  f.failed_clients += b.failed_clients;
  if (f.error.empty()) f.error = b.error;
  if (b.adapter_counters) {
    if (!f.adapter_counters) f.adapter_counters.emplace();
    for (const auto& [k, v] : *b.adapter_counters) (*f.adapter_counters)[k] += v;
  }
  return f;
}

}  // namespace idbench::realbench
