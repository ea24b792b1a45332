// worker_lease.cpp — a leased worker id: claim, keep-alive thread, deadline.
#include "coord/worker_lease.hpp"

#include <fmt/format.h>

#include "plumbing/child_process.hpp"

namespace idbench::coord {

namespace {
using plumbing::kMsNs;
}

LeaseDeadline::LeaseDeadline(int ttl_s, std::int64_t margin_ms)
    : limit_ns_((std::int64_t{ttl_s} * 1000 - margin_ms) * kMsNs) {}

WorkerLease::WorkerLease(LeaseOptions options)
    : options_(std::move(options)),
      claimer_(options_.endpoints, options_.request_timeout_ms * kMsNs),
      deadline_(options_.ttl_s, options_.margin_ms),
      keeper_([this] { keep_alive_loop(); }) {}

WorkerLease::~WorkerLease() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  keeper_.join();
  try {
    if (lease_.load() != 0 && !lost_.load()) claimer_.revoke(lease_.load());
  } catch (const Error&) {  // the lease then expires by itself
  }
}

Claim WorkerLease::claim() {
  const std::int64_t sent = plumbing::monotonic_ns();
  const std::int64_t lease = claimer_.grant(options_.ttl_s);
  const auto c = claimer_.claim_lowest(options_.prefix, lease, options_.max_id, options_.holder);
  if (!c) {
    claimer_.revoke(lease);
    throw Error(fmt::format("every worker id 0..{} is taken", options_.max_id));
  }
  {
    std::lock_guard lock(mutex_);
    deadline_.renewed(sent);
    lease_ = lease;
    lost_ = false;
  }
  wake_.notify_all();
  return *c;
}

bool WorkerLease::within_deadline(std::int64_t now_mono_ns) const {
  return deadline_.holds(now_mono_ns);
}

void WorkerLease::freeze_for(std::int64_t ns) {
  frozen_until_ns_ = plumbing::monotonic_ns() + ns;
}

void WorkerLease::keep_alive_loop() {
  EtcdClient etcd(options_.endpoints, options_.request_timeout_ms * kMsNs);
  const auto period = std::chrono::milliseconds(options_.ttl_s * 1000 / 3);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [this] { return stopping_; });
    if (stopping_) break;
    const std::int64_t frozen = frozen_until_ns_.load() - plumbing::monotonic_ns();
    if (frozen > 0) {
      wake_.wait_for(lock, std::chrono::nanoseconds(frozen), [this] { return stopping_; });
      continue;
    }
    const std::int64_t lease = lease_.load();
    if (lease == 0 || lost_.load()) continue;
    lock.unlock();
    const std::int64_t sent = plumbing::monotonic_ns();
    std::int64_t ttl = -1;
    try {
      ttl = etcd.keepalive(lease);
    } catch (const EtcdUnavailable&) {  // no answer: the deadline keeps running
    }
    lock.lock();
    if (lease != lease_.load()) continue;  // re-claimed meanwhile
    if (ttl > 0) {
      deadline_.renewed(sent);
      ++renewals_;
    } else if (ttl == 0) {
      lost_ = true;
    }
  }
}

}  // namespace idbench::coord
