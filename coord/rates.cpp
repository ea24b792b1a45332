// rates.cpp — lease renewals/s and puts/s against a private etcd cluster.
#include "coord/rates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "coord/etcd_cluster.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::coord {

namespace {

// `clients` threads, each with its own client (and lease), calling for `seconds`.
RatePoint measure(const std::vector<Endpoint>& at, const std::string& what, int clients,
                  double seconds) {
  std::atomic<long long> calls{0};
  std::atomic<long long> busy_ns{0};
  const std::int64_t start = plumbing::monotonic_ns();
  const std::int64_t stop = start + static_cast<std::int64_t>(seconds * 1e9);
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      // Client t starts at member t: the load spreads as a fleet's would.
      std::vector<Endpoint> mine;
      for (std::size_t i = 0; i < at.size(); ++i) mine.push_back(at[(t + i) % at.size()]);
      EtcdClient etcd(mine, 2'000'000'000);
      const std::int64_t lease = what == "keepalive" ? etcd.grant(10) : 0;
      const std::string key = fmt::format("idbench/rate/{}", t);
      long long n = 0;
      const std::int64_t t0 = plumbing::monotonic_ns();
      while (plumbing::monotonic_ns() < stop) {
        try {
          if (lease) {
            etcd.keepalive(lease);
          } else {
            etcd.put(key, "x");
          }
          ++n;
        } catch (const EtcdUnavailable&) {
        }
      }
      calls += n;
      busy_ns += plumbing::monotonic_ns() - t0;
    });
  }
  for (auto& th : threads) th.join();
  RatePoint p;
  p.what = what;
  p.clients = clients;
  p.calls = calls.load();
  p.seconds = (plumbing::monotonic_ns() - start) / 1e9;
  p.per_second = p.calls / p.seconds;
  p.mean_latency_ms = p.calls ? busy_ns.load() / 1e6 / static_cast<double>(p.calls) : 0;
  return p;
}

}  // namespace

std::string check_perf_verdicts(const std::string& output) {
  // Its progress bar redraws one line with '\r' and the first verdict follows it directly.
  std::size_t from = std::string::npos;
  for (const char* first : {"FAIL: too many errors", "PASS: Throughput", "FAIL: Throughput"}) {
    from = std::min(from, output.find(first));
  }
  return from == std::string::npos ? output : output.substr(from);
}

namespace {

std::string check_perf(const std::vector<Endpoint>& at) {
  const std::string etcdctl = plumbing::find_program("etcdctl");
  if (etcdctl.empty()) return "etcdctl not installed (Debian package etcd-client)";
  std::string endpoints;
  for (const auto& e : at) endpoints += fmt::format("{}http://{}:{}", endpoints.empty() ? "" : ",", e.host, e.port);
  plumbing::CommandOptions options;
  options.timeout_ms = 180'000;
  const auto r = plumbing::run_command(
      {etcdctl, "--endpoints=" + endpoints, "check", "perf", "--load=s"}, options);
  return check_perf_verdicts(r.out + r.err);
}

}  // namespace

RateResult measure_rates(const RateOptions& options, std::FILE* progress) {
  plumbing::InterruptGuard guard;
  EtcdCluster cluster({});
  RateResult result;
  const auto r = plumbing::run_command({plumbing::find_program("etcd"), "--version"});
  result.etcd_version = r.out.substr(0, r.out.find('\n'));
  for (const char* what : {"keepalive", "put"}) {
    for (int c : options.clients) {
      if (progress) fmt::print(progress, "worker-ids rates: {} with {} clients, {} s\n", what, c, options.seconds);
      result.points.push_back(measure(cluster.endpoints(), what, c, options.seconds));
    }
  }
  if (options.etcdctl_check_perf) {
    if (progress) fmt::print(progress, "worker-ids rates: etcdctl check perf --load=s (60 s)\n");
    result.etcdctl_check_perf = check_perf(cluster.endpoints());
  }
  return result;
}

}  // namespace idbench::coord
