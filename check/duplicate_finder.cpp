// duplicate_finder.cpp — in-memory radix search, and hash-partitioned spilling above the budget.
#include "check/duplicate_finder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "check/radix.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench {
namespace {

constexpr int kPartitionBits = 8;  // 256 partitions at first: 16 MiB of write buffers
constexpr std::size_t kPartitions = std::size_t{1} << kPartitionBits;
// Below this many records a comparison sort beats 4-8 radix passes over a 64 Ki count table.
constexpr std::size_t kRadixThreshold = std::size_t{1} << 16;
constexpr std::size_t kBufferRecords = 4096;
// A partition still over budget is split again with a new hash; deeper than this, the only
// cause left is one value repeated beyond the budget, which no hash can split.
constexpr int kMaxSplitDepth = 3;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t hash_key(std::uint64_t k, int seed) { return splitmix64(k ^ splitmix64(seed)); }
std::uint64_t hash_key(const Id& k, int seed) { return splitmix64(k.hi ^ hash_key(k.lo, seed)); }

[[noreturn]] void temp_failure(const std::string& path, int err) {
  throw Error(fmt::format("cannot write temporary file {}: {}", path, std::strerror(err)));
}

template <class Rec>
void write_records(int fd, const std::string& path, const std::vector<Rec>& recs) {
  const char* p = reinterpret_cast<const char*>(recs.data());
  std::size_t left = recs.size() * sizeof(Rec);
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) temp_failure(path, errno);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

template <class Rec>
std::vector<Rec> read_records(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) temp_failure(path, errno);
  struct stat st {};
  ::fstat(fd, &st);
  std::vector<Rec> recs(static_cast<std::size_t>(st.st_size) / sizeof(Rec));
  char* p = reinterpret_cast<char*>(recs.data());
  std::size_t left = recs.size() * sizeof(Rec);
  while (left > 0) {
    const ssize_t n = ::read(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      temp_failure(path, err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
  return recs;
}

// 2^bits (at most 256) append-only files of records, each with a write buffer.
template <class Rec>
class PartitionSet {
 public:
  PartitionSet(const std::string& dir, const std::string& stem, int seed, int bits)
      : seed_(seed), bits_(bits) {
    for (std::size_t i = 0; i < (std::size_t{1} << bits); ++i) {
      Part& p = parts_[i];
      p.path = fmt::format("{}/{}-{}", dir, stem, i);
      p.fd = ::open(p.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (p.fd < 0) temp_failure(p.path, errno);
      p.buf.reserve(kBufferRecords);
    }
  }
  ~PartitionSet() {
    for (Part& p : parts_) {
      if (p.fd >= 0) ::close(p.fd);
    }
  }
  PartitionSet(const PartitionSet&) = delete;
  PartitionSet& operator=(const PartitionSet&) = delete;

  void add(const Rec& r) {
    Part& p = parts_[hash_key(r.key, seed_) >> (64 - bits_)];
    p.buf.push_back(r);
    if (p.buf.size() == kBufferRecords) {
      write_records(p.fd, p.path, p.buf);
      p.buf.clear();
    }
  }
  // Flushes and closes every file; returns their paths.
  std::vector<std::string> close() {
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < (std::size_t{1} << bits_); ++i) {
      Part& p = parts_[i];
      write_records(p.fd, p.path, p.buf);
      p.buf = {};
      if (::close(p.fd) != 0) temp_failure(p.path, errno);
      p.fd = -1;
      paths.push_back(p.path);
    }
    return paths;
  }

 private:
  struct Part {
    std::string path;
    int fd = -1;
    std::vector<Rec> buf;
  };
  int seed_;
  int bits_;
  std::array<Part, kPartitions> parts_;
};

}  // namespace

class DuplicateFinder::Impl {
 public:
  virtual ~Impl() = default;
  virtual void expect(std::uint64_t n) = 0;
  virtual void add(const Id& id) = 0;
  virtual std::uint64_t added() const = 0;
  virtual DuplicateSummary finish(std::size_t max_examples) = 0;
};

namespace {

template <class Key>
class Finder final : public DuplicateFinder::Impl {
  struct Rec {
    Key key;
    std::uint64_t pos;
  };

 public:
  explicit Finder(std::uint64_t budget_bytes)
      : budget_(budget_bytes),
        max_in_memory_(std::max<std::uint64_t>(1, budget_bytes / (2 * sizeof(Rec)))) {}

  void expect(std::uint64_t n) override {
    if (spill_) return;
    const std::uint64_t want = records_.size() + n;
    if (want > max_in_memory_) {
      start_spilling();
    } else if (want > records_.capacity()) {
      records_.reserve(static_cast<std::size_t>(want));
    }
  }

  void add(const Id& id) override {
    const Rec r{key_of(id), next_pos_++};
    if (spill_) {
      spill_->add(r);
      return;
    }
    if (records_.size() == records_.capacity()) grow();
    if (spill_) {
      spill_->add(r);
    } else {
      records_.push_back(r);
    }
  }

  std::uint64_t added() const override { return next_pos_; }

  DuplicateSummary finish(std::size_t max_examples) override {
    max_examples_ = max_examples;
    summary_ = {};
    if (!spill_) {
      scan(records_);
      records_ = {};
    } else {
      summary_.spilled = true;
      const auto paths = spill_->close();
      spill_.reset();
      for (const auto& path : paths) process_file(path, 1);
      dir_.reset();
      guard_.reset();
    }
    return std::move(summary_);
  }

 private:
  static Key key_of(const Id& id) {
    if constexpr (std::is_same_v<Key, Id>) {
      return id;
    } else {
      return id.lo;
    }
  }
  static Id id_of(const Key& k) {
    if constexpr (std::is_same_v<Key, Id>) {
      return k;
    } else {
      return Id::from_u64(k);
    }
  }

  // Grows the in-memory array by doubling, up to the budget; at the budget, spills.
  void grow() {
    const std::size_t cap = records_.capacity();
    if (cap >= max_in_memory_) {
      start_spilling();
      return;
    }
    const std::uint64_t next = std::min<std::uint64_t>(std::max<std::size_t>(cap * 2, 4096),
                                                        max_in_memory_);
    records_.reserve(static_cast<std::size_t>(next));
  }

  void start_spilling() {
    guard_.emplace();
    dir_.emplace("idbench-check");
    spill_ = std::make_unique<PartitionSet<Rec>>(dir_->path(), "p", 0, kPartitionBits);
    for (const Rec& r : records_) spill_->add(r);
    records_ = {};
  }

  void process_file(const std::string& path, int depth) {
    plumbing::throw_if_interrupted();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) temp_failure(path, errno);
    const std::uint64_t bytes = static_cast<std::uint64_t>(st.st_size);
    if (bytes > budget_ / 2 && depth < kMaxSplitDepth) {
      std::vector<std::string> sub_paths;
      {
        // As many parts as bring each to a quarter of the budget (hashes are not exact).
        int bits = 1;
        while (bits < kPartitionBits && (bytes >> bits) > budget_ / 4) ++bits;
        PartitionSet<Rec> sub(dir_->path(), fmt::format("d{}-{}", depth, ++splits_), depth, bits);
        for_each_record_of(path, [&](const Rec& r) { sub.add(r); });
        sub_paths = sub.close();
      }
      ::unlink(path.c_str());
      for (const auto& p : sub_paths) process_file(p, depth + 1);
      return;
    }
    std::vector<Rec> recs = read_records<Rec>(path);
    ::unlink(path.c_str());
    scan(recs);
  }

  // Streams a partition file through `fn` in buffer-sized reads (used to split it again).
  template <class Fn>
  void for_each_record_of(const std::string& path, Fn fn) {
    std::ifstream in(path, std::ios::binary);
    std::vector<Rec> buf(kBufferRecords * 16);
    while (in) {
      plumbing::throw_if_interrupted();
      in.read(reinterpret_cast<char*>(buf.data()),
              static_cast<std::streamsize>(buf.size() * sizeof(Rec)));
      const auto n = static_cast<std::size_t>(in.gcount()) / sizeof(Rec);
      for (std::size_t i = 0; i < n; ++i) fn(buf[i]);
    }
    if (in.bad()) temp_failure(path, EIO);
  }

  // Sorts one in-memory set by value (stable, so positions stay ascending within a value)
  // and counts runs of equal values.
  void scan(std::vector<Rec>& recs) {
    if (recs.size() < kRadixThreshold) {
      std::stable_sort(recs.begin(), recs.end(),
                       [](const Rec& a, const Rec& b) { return a.key < b.key; });
    } else {
      std::vector<Rec> scratch;
      radix::radix_sort_by(recs, scratch, [](const Rec& r) -> const Key& { return r.key; });
    }
    for (std::size_t i = 0; i < recs.size();) {
      std::size_t j = i + 1;
      while (j < recs.size() && recs[j].key == recs[i].key) ++j;
      if (j - i > 1) note_run(recs, i, j);
      i = j;
    }
  }

  void note_run(const std::vector<Rec>& recs, std::size_t begin, std::size_t end) {
    summary_.duplicates += end - begin - 1;
    ++summary_.duplicated_values;
    auto& ex = summary_.examples;
    const Id id = id_of(recs[begin].key);
    if (ex.size() == max_examples_ && (ex.empty() || !(id < ex.back().id))) return;
    DuplicateSummary::Example e{id, end - begin, {}};
    for (std::size_t k = begin; k < end && e.positions.size() < DuplicateSummary::kMaxPlaces; ++k) {
      e.positions.push_back(recs[k].pos);
    }
    const auto at = std::lower_bound(ex.begin(), ex.end(), id,
                                     [](const auto& a, const Id& b) { return a.id < b; });
    ex.insert(at, std::move(e));
    if (ex.size() > max_examples_) ex.pop_back();
  }

  std::uint64_t budget_;
  std::uint64_t max_in_memory_;
  std::uint64_t next_pos_ = 0;
  std::vector<Rec> records_;
  // While the partitions exist, SIGINT/SIGTERM/SIGHUP unwind (Interrupted) instead of killing
  // the process, so that the directory goes with them; declared first, it outlives dir_.
  std::optional<plumbing::InterruptGuard> guard_;
  std::optional<plumbing::TempDir> dir_;
  std::unique_ptr<PartitionSet<Rec>> spill_;
  int splits_ = 0;
  std::size_t max_examples_ = 0;
  DuplicateSummary summary_;
};

std::optional<std::uint64_t> read_kib_field(const char* file, std::string_view field) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(field)) continue;
    return std::stoull(line.substr(field.size())) * 1024;
  }
  return std::nullopt;
}

}  // namespace

DuplicateFinder::DuplicateFinder(IdWidth width, std::uint64_t budget_bytes) {
  if (width == IdWidth::bits64) {
    impl_ = std::make_unique<Finder<std::uint64_t>>(budget_bytes);
  } else {
    impl_ = std::make_unique<Finder<Id>>(budget_bytes);
  }
}
DuplicateFinder::~DuplicateFinder() = default;
DuplicateFinder::DuplicateFinder(DuplicateFinder&&) noexcept = default;
DuplicateFinder& DuplicateFinder::operator=(DuplicateFinder&&) noexcept = default;

void DuplicateFinder::expect(std::uint64_t n) { impl_->expect(n); }
void DuplicateFinder::add(const Id& id) { impl_->add(id); }
std::uint64_t DuplicateFinder::added() const { return impl_->added(); }
DuplicateSummary DuplicateFinder::finish(std::size_t max_examples) {
  return impl_->finish(max_examples);
}

std::uint64_t default_memory_budget() {
  std::uint64_t budget = read_kib_field("/proc/meminfo", "MemAvailable:").value_or(
                             std::uint64_t{4} << 30) / 4;
  const std::uint64_t used = read_kib_field("/proc/self/status", "VmSize:").value_or(0);
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit lim {};
    if (::getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t room = lim.rlim_cur > used ? (lim.rlim_cur - used) / 2 : 0;
    budget = std::min(budget, room);
  }
  return budget;
}

}  // namespace idbench
