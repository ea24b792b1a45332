// clock_page.hpp — the writer of a faked clock's page (clock_page.h): one page of a memfd that
// every process whose clock idbench fakes maps read-only, and a lease that keeps it armed only
// while this process lives.
//
//   ClockPage page;                                  // unarmed: whoever maps it reads true time
//   page.set_line(now, now - 200'000'000, 1.0);      // a step back of 200 ms from now on
//   ClockPage::Lease lease(page);                    // renews the deadline until destroyed
//   ... targets map /proc/<this pid>/fd/<page.fd()> (the injector does that) ...
//
// The line is chaos's ClockModel: fake(t) = anchor_fake + rate·(t − anchor_true). `renew`
// moves the deadline to true now + lease; the Lease thread renews it every quarter lease, so a
// target reads true time again within one lease of this process's death (the dead man's
// switch of clock_page.h), and never while this process runs and is scheduled at least once a
// quarter lease.
//
// Thread safety: one writer. set_line, move_monotonic, renew and disarm take a mutex, so the
// Lease thread and the caller may both write; the page's own seqlock protects the readers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "inject/clock_page.h"

namespace idbench::inject {

// How long a target's clock stays faked after the last renewal: long enough that a loaded
// 2-CPU machine does not let a live lease lapse, short enough that a killed idbench's targets
// read true time again before a scenario would notice.
inline constexpr std::int64_t kDefaultLeaseNs = 2'000'000'000;

class ClockPage {
 public:
  ClockPage();  // throws idbench::Error if no memfd can be made
  ~ClockPage();
  ClockPage(const ClockPage&) = delete;
  ClockPage& operator=(const ClockPage&) = delete;

  int fd() const { return fd_; }
  // The path another process opens to map this page: /proc/<this pid>/fd/<fd()>.
  std::string path() const;
  const idbench_clock_page& page() const { return *page_; }

  void set_line(std::int64_t anchor_true_ns, std::int64_t anchor_fake_ns, double rate);
  // A VM pause's catch-up: MONOTONIC and BOOTTIME move by `offset_ns` in every target.
  void move_monotonic(std::int64_t offset_ns);
  void renew(std::int64_t lease_ns = kDefaultLeaseNs);
  void disarm();  // true time from the next read on

  class Lease {
   public:
    explicit Lease(ClockPage& page, std::int64_t lease_ns = kDefaultLeaseNs);
    ~Lease();  // stops renewing and disarms: targets read true time at once
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    ClockPage& page_;
    std::int64_t lease_ns_;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
  };

 private:
  template <class F>
  void write(F&& f);

  int fd_ = -1;
  idbench_clock_page* page_ = nullptr;
  std::mutex m_;
};

// rate × 2^32, rounded; a rate below 0 is refused (std::invalid_argument).
std::int64_t rate_q32(double rate);

}  // namespace idbench::inject
