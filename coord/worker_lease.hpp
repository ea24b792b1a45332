// worker_lease.hpp — one process's worker id, leased from etcd: claimed with a TTL lease, kept
// alive by a background thread, and the deadline the fences read.
//
//   WorkerLease lease({.endpoints = ..., .ttl_s = 2, .margin_ms = 500, .max_id = 1023});
//   Claim c = lease.claim();                   // a new lease, then the lowest free id
//   if (!lease.within_deadline(monotonic_ns())) { ...stop issuing, claim() again... }
//
// The deadline (fencing by deadline): the lease may have expired once the time
// since the *sending* of the last keep-alive that etcd answered with a live TTL exceeds
// TTL − margin, on the monotonic clock. The send time, not the answer's: etcd renewed the
// lease at some instant after it.
//
// Renewals every TTL/3. A renewal answered with TTL 0 (the lease is gone) is not a success;
// the keep-alive thread then stops renewing that lease and marks it lost.
//
// freeze_for(ns) (a test hook): the keep-alive thread sends nothing for that long, as if the
// whole process were paused; the caller pauses itself meanwhile.
//
// Thread safety: claim() from one thread; within_deadline, lost, renewals from any.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coord/etcd_client.hpp"

namespace idbench::coord {

// The deadline alone, on whatever clock the caller reads (the lease's monotonic clock, or a
// test's manual one): held while less than TTL − margin has passed since the sending of the
// last renewal (or claim) etcd answered with a live lease.
// Thread safety: renewed and holds from any thread.
class LeaseDeadline {
 public:
  LeaseDeadline(int ttl_s, std::int64_t margin_ms);
  void renewed(std::int64_t sent_mono_ns) { last_ok_send_ns_ = sent_mono_ns; }
  bool holds(std::int64_t now_mono_ns) const {
    return now_mono_ns - last_ok_send_ns_.load() < limit_ns_;
  }

 private:
  std::int64_t limit_ns_;
  std::atomic<std::int64_t> last_ok_send_ns_{0};
};

struct LeaseOptions {
  std::vector<Endpoint> endpoints;
  std::string prefix = "idbench/workers/";
  int ttl_s = 2;
  std::int64_t margin_ms = 500;
  std::uint64_t max_id = 1023;
  std::string holder = "idbench";
  std::int64_t request_timeout_ms = 400;
};

class WorkerLease {
 public:
  explicit WorkerLease(LeaseOptions options);
  ~WorkerLease();  // stops the keep-alive thread and revokes the lease (best effort)
  WorkerLease(const WorkerLease&) = delete;
  WorkerLease& operator=(const WorkerLease&) = delete;

  // Grants a new lease (revoking none: the old one may be gone) and claims the lowest free
  // id under it. Throws EtcdUnavailable, or Error when every id is taken.
  Claim claim();
  bool within_deadline(std::int64_t now_mono_ns) const;
  bool lost() const { return lost_.load(); }
  std::int64_t renewals() const { return renewals_.load(); }
  std::int64_t lease_id() const { return lease_.load(); }
  void freeze_for(std::int64_t ns);

 private:
  void keep_alive_loop();

  LeaseOptions options_;
  EtcdClient claimer_;
  std::atomic<std::int64_t> lease_{0};
  LeaseDeadline deadline_;
  std::atomic<std::int64_t> frozen_until_ns_{0};
  std::atomic<std::int64_t> renewals_{0};
  std::atomic<bool> lost_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread keeper_;
};

}  // namespace idbench::coord
