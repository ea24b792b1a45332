// node.cpp — a worker-id node: claim, issue per wall-clock ms, fence, record.
#include "coord/node.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <thread>

#include "coord/worker_lease.hpp"
#include "fault/history.hpp"
#include "generators/generator.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::coord {

namespace {

using plumbing::kMsNs;
// The act the injected pause precedes: the batches of this many ms, issued on one check (a
// block of IDs handed out at once), so that the zombie meets its id's new owner in some tick.
constexpr int kHookActMs = 10;

std::atomic<bool> g_stop{false};

// Stops the node at EOF (or error) on stdin: the driver closed it.
void watch_stdin() {
  char buf[256];
  while (::read(0, buf, sizeof buf) > 0) {
  }
  g_stop = true;
}

// Sleeps until the next wall-clock millisecond begins.
void sleep_to_next_ms() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto next = time_point_cast<milliseconds>(now) + milliseconds(1);
  std::this_thread::sleep_until(next);
}

class Recorder {
 public:
  Recorder(const std::string& dir, int index)
      : ids_(std::fopen(fmt::format("{}/{}", dir, fault::record_file_name(index, 0, 0)).c_str(),
                        "wb")),
        events_(std::fopen(fmt::format("{}/node-{}.events", dir, index).c_str(), "w")) {
    if (!ids_ || !events_) throw Error(fmt::format("cannot write the node's files in {}", dir));
  }
  ~Recorder() {
    if (ids_) std::fclose(ids_);
    if (events_) std::fclose(events_);
  }
  void id(std::uint64_t id) {
    const fault::Record r{.lo = id,
                          .true_ns = plumbing::true_ns(),
                          .mono_ns = plumbing::monotonic_ns(),
                          .kind = fault::kind_word(fault::RecordKind::id)};
    std::fwrite(&r, sizeof r, 1, ids_);
  }
  template <class... A>
  void event(fmt::format_string<A...> f, A&&... a) {
    fmt::print(events_, f, std::forward<A>(a)...);
    std::fputc('\n', events_);
    std::fflush(events_);
  }
  bool close() {
    const bool ok = !std::ferror(ids_) && !std::ferror(events_);
    const bool closed = (std::fclose(ids_) == 0) & (std::fclose(events_) == 0);
    ids_ = events_ = nullptr;
    return ok && closed;
  }

 private:
  std::FILE* ids_;
  std::FILE* events_;
};

struct Holder {
  std::uint64_t worker = 0;
  std::uint64_t counter = 0;
  std::uint64_t token = 0;  // in-id: the counter mod 2^gen, the IDs' gen field
  std::unique_ptr<Generator> gen;
};

class Node {
 public:
  explicit Node(const CoordNodeConfig& c)
      : c_(c), layout_(Layout::parse(c.layout)), rec_(c.out_dir, c.index) {
    if (c.behaviour == Behaviour::in_id && layout_.gen_bits() == 0) {
      throw Error(fmt::format("in-id carries the claim counter in the layout's gen field, and "
                              "layout {} has none (gen=BITS)", c.layout));
    }
    max_worker_ = layout_.max_node();
    if (c.etcd) {
      lease_ = std::make_unique<WorkerLease>(LeaseOptions{
          .endpoints = c.endpoints, .prefix = c.prefix, .ttl_s = c.ttl_s,
          .margin_ms = c.margin_ms, .max_id = max_worker_,
          .holder = fmt::format("node-{}", c.index)});
    }
  }

  // The first id: from etcd (EtcdUnavailable propagates: no silent static fallback).
  void first_claim() {
    if (!c_.etcd) return hold(c_.static_id, 0, 0);
    const Claim cl = lease_->claim();
    hold(cl.id, cl.counter, cl.revision);
  }

  void run() {
    const std::int64_t ready_ns = plumbing::monotonic_ns();
    bool hook_armed = c_.inject_pause_at_ms >= 0;
    bool lost_logged = false;
    while (!g_stop.load()) {
      sleep_to_next_ms();
      const std::int64_t now = plumbing::monotonic_ns();
      if (lease_ && lease_->lost() && !lost_logged) rec_.event("lost {}", now);
      lost_logged = lease_ && lease_->lost();
      if (c_.behaviour != Behaviour::unfenced && !lease_->within_deadline(now)) {
        reclaim(now);
        continue;
      }
      if (hook_armed && now - ready_ns >= c_.inject_pause_at_ms * kMsNs) {
        hook_armed = false;  // the check above passed; now the pause, then the act
        lease_->freeze_for(c_.inject_pause_ms * kMsNs);
        std::this_thread::sleep_for(std::chrono::milliseconds(c_.inject_pause_ms));
        rec_.event("hook {} {}", now, plumbing::monotonic_ns());
        for (int ms = 1; ms < kHookActMs && !g_stop.load(); ++ms) {  // the act, unchecked
          issue_batch();
          sleep_to_next_ms();
        }
      }
      issue_batch();
    }
  }

  int finish() {
    if (lease_) rec_.event("renewals {}", lease_->renewals());
    lease_.reset();  // revokes
    return rec_.close() ? 0 : 3;
  }

 private:
  void hold(std::uint64_t worker, std::uint64_t counter, std::int64_t revision) {
    if (worker > max_worker_) throw Error(fmt::format("worker id {} > {}", worker, max_worker_));
    GeneratorOptions opts;
    opts.layout = layout_;
    opts.node = worker;
    const std::uint64_t token = c_.behaviour == Behaviour::in_id ? counter & layout_.max_gen() : 0;
    h_ = {worker, counter, token, make_generator(c_.variant, opts)};
    rec_.event("claim {} {} {} {}", plumbing::monotonic_ns(), worker, counter, revision);
  }

  void reclaim(std::int64_t since) {
    while (!g_stop.load()) {
      try {
        const Claim cl = lease_->claim();
        rec_.event("stall {} {}", since, plumbing::monotonic_ns());
        hold(cl.id, cl.counter, cl.revision);
        return;
      } catch (const EtcdUnavailable&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    rec_.event("stall {} {}", since, plumbing::monotonic_ns());
  }

  void issue_batch() {
    for (int i = 0; i < c_.ids_per_ms; ++i) {
      try {
        const std::uint64_t id = fenced(h_.gen->next().lo);
        rec_.id(id);
      } catch (const ClockError&) {  // a refusal issues nothing
      }
    }
  }

  // in-id: the claim's token in the layout's gen field, which the variant's policy left 0.
  std::uint64_t fenced(std::uint64_t id) const {
    if (c_.behaviour != Behaviour::in_id) return id;
    LayoutFields f = layout_.decode(id);
    if (f.gen != 0) throw Error("the variant wrote a generation into the gen field in-id owns");
    f.gen = h_.token;
    return layout_.encode(f);
  }

  const CoordNodeConfig& c_;
  Layout layout_;
  Recorder rec_;
  std::uint64_t max_worker_ = 0;
  std::unique_ptr<WorkerLease> lease_;
  Holder h_;
};

}  // namespace

Layout worker_layout(const std::string& layout, Behaviour behaviour, int gen_bits) {
  const Layout base = Layout::parse(layout);
  if (behaviour != Behaviour::in_id || base.gen_bits() > 0) return base;
  if (gen_bits < 1 || gen_bits >= base.node_bits()) {
    throw Error(fmt::format("--gen-bits {} leaves no worker bits in the {}-bit node field of {}",
                            gen_bits, base.node_bits(), base.name()));
  }
  LayoutSpec spec{.name = fmt::format("{}+gen{}", base.name(), gen_bits),
                  .spare_bit = base.spare_bit(), .ts_bits = base.ts_bits(),
                  .node = {{"worker", base.node_bits() - gen_bits}},  // a worker id is one number
                  .seq_bits = base.seq_bits(), .gen_bits = gen_bits,
                  .node_in_low_bits = base.node_in_low_bits(), .unit_ms = base.unit_ms(),
                  .epoch_unix_ms = base.epoch_unix_ms()};
  return Layout::from_spec(std::move(spec), std::numeric_limits<std::int64_t>::max());
}

std::string_view name_of(Behaviour b) { return plumbing::name_in(kBehaviourNames, b); }

std::optional<Behaviour> behaviour_named(std::string_view name) {
  return plumbing::value_in(kBehaviourNames, name);
}

int run_coord_node(const CoordNodeConfig& config) {
  try {
    if (config.behaviour != Behaviour::unfenced && !config.etcd) {
      throw Error("the deadline and in-id fences need --worker-ids etcd (a lease to fence on)");
    }
    Node node(config);
    node.first_claim();
    std::thread(watch_stdin).detach();
    std::printf("ready\n");
    std::fflush(stdout);
    node.run();
    return node.finish();
  } catch (const Error& e) {
    std::fprintf(stderr, "idbench-coord-node %d: %s\n", config.index, e.what());
    return 2;
  }
}

}  // namespace idbench::coord
