#include "chaos/faketime.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "generators/errors.hpp"

extern char** environ;

namespace idbench::chaos {

std::int64_t lib_start_from_calibration(std::int64_t true_ns, std::int64_t fake_ns) {
  // fake = t + (r − 1)(t − s)  =>  s = t − (fake − t) / (r − 1)
  const double elapsed = static_cast<double>(fake_ns - true_ns) / (kCalibrationRate - 1.0);
  return true_ns - static_cast<std::int64_t>(std::llround(elapsed));
}

std::int64_t ClockModel::fake_at(std::int64_t true_ns) const {
  return anchor_fake_ + static_cast<std::int64_t>(
                            std::llround(rate_ * static_cast<double>(true_ns - anchor_true_)));
}

void ClockModel::step(std::int64_t at_true_ns, std::int64_t delta_ns) {
  anchor_fake_ = fake_at(at_true_ns) + delta_ns;
  anchor_true_ = at_true_ns;
}

void ClockModel::set_rate(std::int64_t at_true_ns, double rate) {
  anchor_fake_ = fake_at(at_true_ns);
  anchor_true_ = at_true_ns;
  rate_ = rate;
}

void ClockModel::change_rate(std::int64_t now_true_ns, double rate,
                             std::int64_t max_write_delay_ns) {
  set_rate(rate < rate_ ? now_true_ns + max_write_delay_ns : now_true_ns, rate);
}

std::string ClockModel::setting_for(std::int64_t lib_start_true_ns) const {
  // libfaketime: fake(t) = t + (r − 1)(t − s) + o. The model: a_f + r(t − a_t).
  // Equal for every t when o = (a_f − a_t) + (r − 1)(s − a_t).
  const double offset_ns = static_cast<double>(anchor_fake_ - anchor_true_) +
                           (rate_ - 1.0) * static_cast<double>(lib_start_true_ns - anchor_true_);
  // Nine decimals: ns resolution for the offsets of a run (seconds); the year-10889 offset of
  // the epoch-exhaustion scenario (~2.8e11 s) keeps ~30 µs in a double, ample at 1 ms ticks.
  // The rate is always written, 1 included: libfaketime 0.9.10 keeps the last rate it parsed
  // when a setting has none, so "+0.5" after "+0 x2" would still run at ×2.
  return fmt::format("{:+.9f} x{:.9f}", offset_ns / 1e9, rate_);
}

void write_setting(const std::string& path, std::string_view setting) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot write {}: {}", temp, std::strerror(errno)));
  const std::string text = fmt::format("{}\n", setting);
  const ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    throw Error(fmt::format("cannot write {}: {}", temp, std::strerror(errno)));
  }
  // No fsync: the reader is a process on this machine, and rename is atomic for it.
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    throw Error(fmt::format("cannot rename {} to {}: {}", temp, path, std::strerror(errno)));
  }
}

std::string find_libfaketime() {
  if (const char* env = std::getenv("IDBENCH_LIBFAKETIME"); env != nullptr && *env != '\0') {
    if (::access(env, R_OK) == 0) return env;
    throw Error(fmt::format("IDBENCH_LIBFAKETIME={} is not readable", env));
  }
  for (const char* path :
       {"/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
        "/usr/lib/faketime/libfaketimeMT.so.1", "/usr/local/lib/faketime/libfaketimeMT.so.1"}) {
    if (::access(path, R_OK) == 0) return path;
  }
  throw Error(
      "libfaketimeMT.so.1 not found: install the Debian package libfaketime (apt-get install "
      "libfaketime faketime), or point IDBENCH_LIBFAKETIME at it");
}

FaketimeShared::FaketimeShared() {
  const long pid = static_cast<long>(::getpid());
  sem_name_ = fmt::format("/faketime_sem_idbench_{}", pid);
  shm_name_ = fmt::format("/faketime_shm_idbench_{}", pid);
  sem_unlink(sem_name_.c_str());  // a stale pair from a dead process that had our pid
  shm_unlink(shm_name_.c_str());
  sem_t* sem = sem_open(sem_name_.c_str(), O_CREAT | O_EXCL, 0600, 1);
  if (sem == SEM_FAILED) {
    throw Error(fmt::format("sem_open {}: {}", sem_name_, std::strerror(errno)));
  }
  sem_close(sem);
  const int fd = shm_open(shm_name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    sem_unlink(sem_name_.c_str());
    throw Error(fmt::format("shm_open {}: {}", shm_name_, std::strerror(errno)));
  }
  // libfaketime maps its shared struct (a few counters) from this object; one page holds it.
  const int rc = ::ftruncate(fd, 4096);
  ::close(fd);
  if (rc != 0) {
    unlink();
    throw Error(fmt::format("ftruncate {}: {}", shm_name_, std::strerror(errno)));
  }
  linked_ = true;
  env_value_ = sem_name_ + " " + shm_name_;
}

FaketimeShared& FaketimeShared::instance() {
  static FaketimeShared shared;
  return shared;
}

void FaketimeShared::unlink() {
  if (!linked_) return;
  sem_unlink(sem_name_.c_str());
  shm_unlink(shm_name_.c_str());
  linked_ = false;
}

namespace {

bool is_faketime_entry(std::string_view key) {
  return key == "LD_PRELOAD" || key.starts_with("FAKETIME") || key == "DONT_FAKE_MONOTONIC" ||
         key == "TZ";
}

}  // namespace

std::vector<std::string> environment_without_faketime() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!is_faketime_entry(entry.substr(0, entry.find('=')))) env.emplace_back(entry);
  }
  env.push_back("TZ=UTC");
  return env;
}

std::vector<std::string> node_environment(const std::string& timestamp_file,
                                          const std::string& libfaketime) {
  std::vector<std::string> env;
  std::string asan = "verify_asan_link_order=0";
  for (std::string& entry : environment_without_faketime()) {
    if (entry.starts_with("ASAN_OPTIONS=")) {
      asan = entry.substr(entry.find('=') + 1) + ":" + asan;
      continue;
    }
    env.push_back(std::move(entry));
  }
  env.push_back("LD_PRELOAD=" + libfaketime);
  env.push_back("FAKETIME_TIMESTAMP_FILE=" + timestamp_file);
  env.push_back("FAKETIME_NO_CACHE=1");
  env.push_back("DONT_FAKE_MONOTONIC=1");
  env.push_back("FAKETIME_SHARED=" + FaketimeShared::instance().env_value());
  env.push_back("ASAN_OPTIONS=" + asan);
  return env;
}

}  // namespace idbench::chaos
