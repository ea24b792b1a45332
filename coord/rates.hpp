// rates.hpp — how many lease renewals per second a private
// 3-member etcd cluster takes against how many writes (puts), through this project's client
// (one persistent HTTP/1.1 connection per client thread), and etcd's own `etcdctl check perf`
// (the write benchmark Debian packages; no `benchmark` tool is packaged) when present.
//
//   RateOptions o;  o.clients = {1, 4, 16};  o.seconds = 3;
//   std::vector<RatePoint> points = measure_rates(o, stderr);
//
// Measures only; the CLI formats. Thread safety: call from one thread; it starts its own.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace idbench::coord {

struct RateOptions {
  std::vector<int> clients = {1, 4, 16};
  double seconds = 3;
  bool etcdctl_check_perf = true;  // ~60 s more
};

struct RatePoint {
  std::string what;  // "keepalive" or "put"
  int clients = 0;
  long long calls = 0;
  double seconds = 0;
  double per_second = 0;
  double mean_latency_ms = 0;
};

struct RateResult {
  std::vector<RatePoint> points;
  std::string etcd_version;
  std::string etcdctl_check_perf;  // its verdicts (check_perf_verdicts), or why it did not run
};

RateResult measure_rates(const RateOptions& options, std::FILE* progress);

// `etcdctl check perf`'s output from its first verdict on (errors, throughput, slowest request,
// stddev, then PASS or FAIL), without the progress bar before it; all of it when it has none
// (an error message).
std::string check_perf_verdicts(const std::string& output);

}  // namespace idbench::coord
