// clock_page.cpp — the writer of a faked clock's page (clock_page.hpp).
#include "inject/clock_page.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "plumbing/error.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::inject {

std::int64_t rate_q32(double rate) {
  if (!(rate >= 0.0) || !std::isfinite(rate)) {
    throw std::invalid_argument("a clock's rate is a finite number >= 0");
  }
  return std::llround(std::ldexp(rate, 32));
}

ClockPage::ClockPage() {
  fd_ = ::memfd_create("idbench-clock", MFD_CLOEXEC);
  if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(::sysconf(_SC_PAGESIZE))) != 0) {
    const int e = errno;
    if (fd_ >= 0) ::close(fd_);
    throw Error(std::string("cannot make the faked clock's page: ") + std::strerror(e));
  }
  void* p = ::mmap(nullptr, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)),
                   PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    ::close(fd_);
    throw Error(std::string("cannot map the faked clock's page: ") + std::strerror(e));
  }
  page_ = static_cast<idbench_clock_page*>(p);  // zero-filled: unarmed
  page_->version = IDBENCH_CLOCK_PAGE_VERSION;
  page_->rate_q32 = std::int64_t{1} << 32;
  __atomic_store_n(&page_->magic, IDBENCH_CLOCK_PAGE_MAGIC, __ATOMIC_RELEASE);
}

std::string ClockPage::path() const {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
}

ClockPage::~ClockPage() {
  ::munmap(page_, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  ::close(fd_);
}

// The seqlock's writer side (clock_page.h): odd, the fields, even.
template <class F>
void ClockPage::write(F&& f) {
  std::lock_guard lock(m_);
  const std::uint32_t s = page_->seq;
  __atomic_store_n(&page_->seq, s + 1, __ATOMIC_RELEASE);
  // Each field is a release store (below), so a reader that sees a new field value also sees
  // this odd seq when it reads seq again (clock_page.h).
  f(*page_);
  // release: the fields are visible before the even seq that says they are whole
  __atomic_store_n(&page_->seq, s + 2, __ATOMIC_RELEASE);
}

void ClockPage::set_line(std::int64_t anchor_true_ns, std::int64_t anchor_fake_ns, double rate) {
  const std::int64_t q = rate_q32(rate);
  write([&](idbench_clock_page& p) {
    __atomic_store_n(&p.anchor_true_ns, anchor_true_ns, __ATOMIC_RELEASE);
    __atomic_store_n(&p.anchor_fake_ns, anchor_fake_ns, __ATOMIC_RELEASE);
    __atomic_store_n(&p.rate_q32, q, __ATOMIC_RELEASE);
  });
}

void ClockPage::move_monotonic(std::int64_t offset_ns) {
  write([&](idbench_clock_page& p) {
    __atomic_store_n(&p.monotonic_offset_ns, offset_ns, __ATOMIC_RELEASE);
    __atomic_store_n(&p.flags, p.flags | IDBENCH_CLOCK_MOVE_MONOTONIC, __ATOMIC_RELEASE);
  });
}

void ClockPage::renew(std::int64_t lease_ns) {
  const std::int64_t deadline = plumbing::true_ns() + lease_ns;
  write(
      [&](idbench_clock_page& p) { __atomic_store_n(&p.deadline_ns, deadline, __ATOMIC_RELEASE); });
}

void ClockPage::disarm() {
  write([](idbench_clock_page& p) { __atomic_store_n(&p.deadline_ns, 0, __ATOMIC_RELEASE); });
}

ClockPage::Lease::Lease(ClockPage& page, std::int64_t lease_ns) : page_(page), lease_ns_(lease_ns) {
  page_.renew(lease_ns_);
  thread_ = std::thread([this] {
    std::unique_lock lock(m_);
    while (!cv_.wait_for(lock, std::chrono::nanoseconds(lease_ns_ / 4), [this] { return stop_; })) {
      page_.renew(lease_ns_);
    }
  });
}

ClockPage::Lease::~Lease() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
  page_.disarm();
}

}  // namespace idbench::inject
