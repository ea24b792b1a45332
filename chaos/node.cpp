#include "chaos/node.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "chaos/clock_sequence_store.hpp"
#include "chaos/high_water_mark.hpp"
#include "chaos/record.hpp"
#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "generators/uuid_format.hpp"
#include "plumbing/atomic_file.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::chaos {
namespace {

// 64 Ki records (2 MiB) per thread: the writer drains every millisecond, so even a flat-out
// thread (~300 k calls/s under libfaketime) leaves the queue far from full.
constexpr std::size_t kQueueRecords = 1 << 16;
using Queue = boost::lockfree::spsc_queue<Record, boost::lockfree::capacity<kQueueRecords>>;

// A paced thread that fell this far behind its schedule (it was stopped, or its call blocked)
// drops the slots it missed instead of bursting to catch up: a client that timed out does not
// come back all at once.
constexpr std::int64_t kMaxLagNs = 50'000'000;
// After the stop time, how long to wait for a thread still inside next() (a `wait` policy
// spinning through a long regression) before writing what there is and leaving without it.
constexpr std::int64_t kStopGraceNs = 200'000'000;

// One generator thread's state, on its own cache line: the writer polls `done` and the queue
// indices of every thread, and false sharing would make each poll a cache miss.
struct alignas(64) ThreadState {
  Queue queue;
  std::atomic<bool> done{false};
  // True time at which the current call began, or -1 between calls. Relaxed: read only to
  // report a thread stuck at the stop time, after the stop, as a best-effort number.
  std::atomic<std::int64_t> in_call_since{-1};
  std::uint64_t records = 0;  // written by the writer thread only
  // An external program: this thread's instance and what is left of its last answer.
  std::unique_ptr<external::Program> program;
  std::vector<Id> ids;
  std::size_t taken = 0;
};

class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_all(int fd, const void* data, std::size_t bytes, const std::string& what) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(fmt::format("writing {}: {}", what, std::strerror(errno)));
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void append_line(const std::string& path, const std::string& line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(fmt::format("opening {}: {}", path, std::strerror(errno)));
  write_all(fd, line.data(), line.size(), path);
  ::close(fd);
}

RefusalKind classify(const ClockError& e, std::uint64_t& behind_ms) {
  behind_ms = 0;
  if (const auto* b = dynamic_cast<const ClockMovedBackwards*>(&e)) {
    behind_ms = static_cast<std::uint64_t>(b->behind_ms());
    return RefusalKind::clock_moved_backwards;
  }
  if (const auto* w = dynamic_cast<const WaitBoundExceeded*>(&e)) {
    behind_ms = static_cast<std::uint64_t>(w->behind_ms());
    return RefusalKind::wait_bound_exceeded;
  }
  if (dynamic_cast<const BorrowLimitExceeded*>(&e) != nullptr) {
    return RefusalKind::borrow_limit_exceeded;
  }
  if (dynamic_cast<const EpochExhausted*>(&e) != nullptr) return RefusalKind::epoch_exhausted;
  return RefusalKind::other;
}

class Node {
 public:
  explicit Node(const NodeConfig& cfg) : cfg_(cfg), threads_(cfg.threads) {
    if (!cfg.exec) gen_ = make_builtin(cfg, reserving_);
    for (unsigned t = 0; t < cfg.threads; ++t) {
      threads_[t] = std::make_unique<ThreadState>();
      const std::string path = fmt::format(
          "{}/{}", cfg.out_dir, record_file_name(cfg.node_index, cfg.incarnation, int(t)));
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw IoError(fmt::format("creating {}: {}", path, std::strerror(errno)));
      fds_.push_back(fd);
    }
    messages_path_ =
        fmt::format("{}/{}", cfg.out_dir, messages_file_name(cfg.node_index, cfg.incarnation));
    if (cfg.probe) {
      const std::string path =
          fmt::format("{}/{}", cfg.out_dir, probe_file_name(cfg.node_index, cfg.incarnation));
      probe_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (probe_fd_ < 0) throw IoError(fmt::format("creating {}: {}", path, std::strerror(errno)));
    }
    period_ns_ = cfg.rate > 0 ? 1e9 * cfg.threads / cfg.rate : 0;
  }

  ~Node() {
    if (!workers_.empty()) abandon();
    for (int fd : fds_) ::close(fd);
    if (probe_fd_ >= 0) ::close(probe_fd_);
  }

  static std::unique_ptr<Generator> make_builtin(const NodeConfig& cfg,
                                                 std::shared_ptr<ReservingClock>& reserving) {
    GeneratorOptions opts;
    // The layout's "epoch in the future" check is about the configuration, not about the
    // faked clock: a leap-second run sets the clock to 2016, and that must not reject a layout
    // whose epoch is 2020. The generator itself still refuses a clock before its epoch.
    opts.layout = Layout::parse(cfg.layout, Clock::floor_div(plumbing::true_ns(), 1'000'000));
    opts.policy = Policy::parse(cfg.policy);
    opts.node = cfg.node_id;
    // A UUIDv1/v6 node is the configured node id, marked as no MAC by the multicast bit
    // (RFC 9562 §6.10), so a restarted node issues under the same node field.
    opts.uuid_node = uuid_format::kMulticastBit | cfg.node_id;
    if (!cfg.persist_dir.empty()) {
      if (opts.policy.kind == PolicyKind::clock_sequence) {
        opts.generation_store = std::make_shared<ClockSequenceStore>(cfg.persist_dir);
      }
      HighWaterMark mark(mark_path(cfg.persist_dir, cfg.node_id), cfg.slow_store_ms);
      opts.resume_after_unix_ms = mark.load();
      reserving = std::make_shared<ReservingClock>(wall_clock(), mark, lookahead_ms(opts.policy),
                                                   cfg.reserve_ms, opts.resume_after_unix_ms);
      opts.clock = reserving;
    }
    return make_generator(cfg.variant, opts);
  }

  // Starts the generator threads (and their programs); returns when every one is ready.
  void prepare() {
    for (unsigned t = 0; t < cfg_.threads; ++t) workers_.emplace_back([this, t] { work(t); });
    for (unsigned n = 0; (n = prepared_.load(std::memory_order_acquire)) < cfg_.threads;) {
      prepared_.wait(n, std::memory_order_acquire);
    }
  }

  // On the run's clock, before the run starts: the first durable reservation, so that a slow
  // disk delays the start (the driver waits for "armed") rather than the first IDs. Nothing to
  // do without a mark, or when the stored mark already covers the clock (a restart behind it).
  void arm() {
    if (reserving_) (void)reserving_->wall_ns();
  }

  // The driver gave up before "go": the threads leave without issuing.
  void abandon() {
    start_ = stop_ = 0;
    go_.store(true, std::memory_order_release);
    go_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  // Starts the writer and releases the generator threads; they wait for `start_mono_ns`.
  void run(std::int64_t start_mono_ns, std::int64_t stop_mono_ns) {
    start_ = start_mono_ns;
    stop_ = stop_mono_ns;
    std::thread writer([this] { write_loop(); });
    std::thread prober;
    if (probe_fd_ >= 0) prober = std::thread([this] { probe_loop(); });
    std::vector<std::thread> workers;
    workers.swap(workers_);
    // Release pairs with the acquire in work(): start_ and stop_ are set.
    go_.store(true, std::memory_order_release);
    go_.notify_all();
    while (!plumbing::sleep_until_mono(stop_)) {
    }
    // Give a thread still inside next() a moment; one that stays (a long `wait`) is reported
    // as stuck and left behind: the process exits without it. A program's call is a request
    // its timeout ends: wait for that, so a program that stopped answering ends the node with
    // its error (program_failed) instead of passing as a stall.
    const std::int64_t give_up =
        stop_ + kStopGraceNs + (cfg_.exec ? cfg_.exec->timeout_ms * 1'000'000 : 0);
    bool all_done = false;
    while (!all_done && plumbing::monotonic_ns() < give_up) {
      all_done = true;
      for (const auto& s : threads_) all_done = all_done && s->done.load(std::memory_order_acquire);
      if (!all_done) plumbing::sleep_until_mono(plumbing::monotonic_ns() + 1'000'000);
    }
    stop_writer_.store(true, std::memory_order_release);
    writer.join();
    if (prober.joinable()) prober.join();
    write_done_file();
    if (!all_done) {
      std::fflush(nullptr);
      ::_exit(0);  // cannot join a thread blocked in next(); every record is on disk already
    }
    for (auto& w : workers) w.join();
  }

 private:
  void work(unsigned t) {
    ThreadState& s = *threads_[t];
    if (cfg_.exec) {
      try {
        s.program = std::make_unique<external::Program>(*cfg_.exec, cfg_.node_id + t);
      } catch (const std::exception& e) {
        program_failed(e);
      }
    }
    prepared_.fetch_add(1, std::memory_order_release);
    prepared_.notify_all();
    go_.wait(false, std::memory_order_acquire);
    if (s.program && stop_ > 0) {
      // The rest of its start-up (an interpreter's lazy imports) before the start time, on
      // the run's clock: one request of one ID, not recorded (issued before the run; a batch
      // taken now would hand stale IDs into it).
      std::vector<Id> warm;
      try {
        s.program->request(1, warm);
      } catch (const std::exception& e) {
        program_failed(e);
      }
    }
    issue_loop(s);
    s.program.reset();  // EOF from the thread that started it, before the thread ends
  }

  Id next_id(ThreadState& s) {
    if (!s.program) return gen_->next();
    if (s.taken == s.ids.size()) {
      s.ids.clear();
      s.taken = 0;
      s.program->request(cfg_.exec->batch, s.ids);
    }
    return s.ids[s.taken++];
  }

  void issue_loop(ThreadState& s) {
    while (!plumbing::sleep_until_mono(start_)) {
    }
    double due = static_cast<double>(start_);
    for (;;) {
      const std::int64_t now = plumbing::monotonic_ns();
      if (now >= stop_) break;
      if (period_ns_ > 0) {
        if (due > static_cast<double>(now)) {
          plumbing::sleep_until_mono(std::min(static_cast<std::int64_t>(due), stop_));
          continue;
        }
        if (static_cast<double>(now) - due > kMaxLagNs) due = static_cast<double>(now);
        due += period_ns_;
      }
      s.in_call_since.store(plumbing::true_ns(), std::memory_order_relaxed);
      Record r;
      const std::int64_t began = plumbing::monotonic_ns();
      try {
        const Id id = next_id(s);
        r.hi = id.hi;
        r.lo = id.lo;
        r.kind = fault::kind_word(RecordKind::id);
      } catch (const ClockError& e) {
        std::uint64_t behind = 0;
        const RefusalKind kind = classify(e, behind);
        r.hi = behind;
        r.kind = fault::kind_word(RecordKind::refusal);
        r.detail = static_cast<std::uint16_t>(kind);
        note_first_message(kind, e.what());
      } catch (const std::exception& e) {
        // Not a refusal but a configuration the generator cannot serve (thread-local out of
        // node ids), or a program that failed: the run is void, say so and stop.
        program_failed(e);
      }
      const std::int64_t ended = plumbing::monotonic_ns();
      r.true_ns = plumbing::true_ns();
      r.mono_ns = ended;
      s.in_call_since.store(-1, std::memory_order_relaxed);
      r.call_us = fault::call_us(began, ended);
      // Never drop: a full queue waits for the writer.
      while (!s.queue.push(r)) std::this_thread::yield();
    }
    // Release pairs with the acquire in run() and write_loop(): every push happens-before.
    s.done.store(true, std::memory_order_release);
  }

  // Every ms from start to stop: the faked clock through libc (libfaketime), the true time on
  // both sides of it. One write per sample, so a kill -9 loses at most the last.
  void probe_loop() {
    try {
      const auto clock = wall_clock();
      for (std::int64_t due = start_; due < stop_; due += 1'000'000) {
        while (!plumbing::sleep_until_mono(due)) {
        }
        const std::int64_t t1 = plumbing::true_ns();
        const std::int64_t fake = clock->wall_ns();
        const std::int64_t t2 = plumbing::true_ns();
        const ProbeSample p{t1 + (t2 - t1) / 2, fake};
        write_all(probe_fd_, &p, sizeof p, "probe");
      }
    } catch (const std::exception& e) {
      fatal(3, e.what());
    }
  }

  void note_first_message(RefusalKind kind, const char* what) {
    const auto k = static_cast<std::size_t>(kind);
    // Relaxed: the flag only keeps the message file to one line per kind; the line itself is
    // written under the mutex.
    if (seen_[k].exchange(true, std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(messages_mu_);
    append_line(messages_path_, fmt::format("{}\t{}\n", name_of(kind), what));
  }

  // A program's failure (external::ProgramError) goes to its own file too, for the driver to
  // report as the program's fault; anything else is only the node's.
  [[noreturn]] void program_failed(const std::exception& e) {
    if (dynamic_cast<const external::ProgramError*>(&e) != nullptr) {
      const std::string path = fmt::format(
          "{}/{}", cfg_.out_dir, program_error_file_name(cfg_.node_index, cfg_.incarnation));
      try {
        plumbing::write_file_atomically(path, std::string(e.what()) + "\n");
      } catch (const std::exception&) {
        // The message still reaches the node's stderr below.
      }
    }
    fatal(2, e.what());
  }

  [[noreturn]] static void fatal(int status, const char* what) {
    fmt::print(stderr, "idbench-chaos-node: {}\n", what);
    std::fflush(nullptr);
    ::_exit(status);
  }

  void write_loop() {
    try {
      drain_until_stopped();
    } catch (const std::exception& e) {
      fatal(3, e.what());
    }
  }

  void drain_until_stopped() {
    std::vector<Record> buf(4096);
    for (;;) {
      // Read the stop flag before draining: everything pushed before the threads finished is
      // then drained by this pass or an earlier one.
      const bool stopping = stop_writer_.load(std::memory_order_acquire);
      std::size_t drained = 0;
      for (std::size_t t = 0; t < threads_.size(); ++t) {
        ThreadState& s = *threads_[t];
        for (;;) {
          const std::size_t n = s.queue.pop(buf.data(), buf.size());
          if (n == 0) break;
          write_all(fds_[t], buf.data(), n * sizeof(Record), "records");
          s.records += n;
          drained += n;
        }
      }
      if (stopping) return;
      if (drained == 0) plumbing::sleep_until_mono(plumbing::monotonic_ns() + 1'000'000);
    }
  }

  void write_done_file() {
    std::string text;
    for (std::size_t t = 0; t < threads_.size(); ++t) {
      text += fmt::format("thread {} records {} stuck_since_true_ns {}\n", t, threads_[t]->records,
                          threads_[t]->in_call_since.load(std::memory_order_relaxed));
    }
    const std::string path =
        fmt::format("{}/{}", cfg_.out_dir, done_file_name(cfg_.node_index, cfg_.incarnation));
    try {
      plumbing::write_file_atomically(path, text);
    } catch (const plumbing::OutputError& e) {
      throw IoError(e.what());
    }
  }

  const NodeConfig cfg_;
  std::unique_ptr<Generator> gen_;  // null for an external program (ThreadState::program)
  std::vector<std::thread> workers_;
  std::atomic<unsigned> prepared_{0};
  std::atomic<bool> go_{false};
  std::vector<std::unique_ptr<ThreadState>> threads_;
  std::vector<int> fds_;
  int probe_fd_ = -1;
  std::string messages_path_;
  std::mutex messages_mu_;
  std::array<std::atomic<bool>, kRefusalKinds> seen_{};
  std::atomic<bool> stop_writer_{false};
  double period_ns_ = 0;
  std::int64_t start_ = 0;
  std::int64_t stop_ = 0;
  std::shared_ptr<ReservingClock> reserving_;  // the generator's clock, with --persist
};

}  // namespace

int run_node(const NodeConfig& cfg) {
  std::unique_ptr<Node> node;
  try {
    node = std::make_unique<Node>(cfg);
  } catch (const IoError& e) {
    fmt::print(stderr, "idbench-chaos-node: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "idbench-chaos-node: {}\n", e.what());
    return 2;
  }

  node->prepare();
  // Calibration reading (see node.hpp): the oracle on both sides of one faked reading.
  const std::int64_t t1 = plumbing::true_ns();
  const std::int64_t fake = wall_clock()->wall_ns();
  const std::int64_t t2 = plumbing::true_ns();
  fmt::print("ready {} {}\n", t1 + (t2 - t1) / 2, fake);
  std::fflush(stdout);

  std::string word;
  if (!(std::cin >> word) || word != "arm") {
    node->abandon();
    return 0;  // the driver gave up
  }
  try {
    node->arm();
  } catch (const std::exception& e) {
    fmt::print(stderr, "idbench-chaos-node: {}\n", e.what());
    node->abandon();
    return 3;
  }
  fmt::print("armed\n");
  std::fflush(stdout);
  std::int64_t start = 0;
  std::int64_t stop = 0;
  if (!(std::cin >> word >> start >> stop) || word != "go") {
    node->abandon();
    return 0;  // the driver gave up
  }
  try {
    node->run(start, stop);
  } catch (const IoError& e) {
    fmt::print(stderr, "idbench-chaos-node: {}\n", e.what());
    return 3;
  }
  return 0;
}

}  // namespace idbench::chaos
