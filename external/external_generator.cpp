// external_generator.cpp — an external program as a Generator (one Program per calling
// thread) and as the Variant description the harness reads.
#include <fmt/format.h>

#include <mutex>

#include "external/program.hpp"
#include "generators/thread_held.hpp"

namespace idbench::external {
namespace {

IdWidth resolved_width(const ExecSpec& spec) {
  if (spec.width) return *spec.width;
  return spec.id_time == IdTime::none || spec.id_time == IdTime::layout ? IdWidth::bits64
                                                                        : IdWidth::bits128;
}

// One thread's program and the IDs of its last answer not yet handed out.
struct Instance {
  std::unique_ptr<Program> program;
  std::vector<Id> ids;
  std::size_t taken = 0;
};

// The instances of one generator; shared with the threads holding one, so that a thread that
// exits after the generator is gone can still hand its instance back.
class Instances {
 public:
  Instances(ExecSpec spec, std::uint64_t first_node)
      : spec_(std::move(spec)), next_node_(first_node) {}

  // A new program for the calling thread (the thread that forks it must outlive it: the
  // parent-death signal follows the forking thread).
  Instance* start() {
    std::uint64_t node;
    {
      std::lock_guard<std::mutex> lock(mu_);
      node = next_node_++;
    }
    auto instance = std::make_unique<Instance>();
    instance->program = std::make_unique<Program>(spec_, node);
    instance->ids.reserve(static_cast<std::size_t>(spec_.batch));
    std::lock_guard<std::mutex> lock(mu_);
    live_.push_back(std::move(instance));
    return live_.back().get();
  }
  // Ends `instance` (EOF, then signals) on the calling thread; a no-op once the generator
  // has ended every instance.
  void give_back(Instance* instance) {
    std::unique_ptr<Instance> ending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& p : live_) {
        if (p.get() == instance) ending = std::move(p);
      }
      std::erase(live_, nullptr);
    }
  }
  void finish_all() {
    std::vector<std::unique_ptr<Instance>> ending;
    std::lock_guard<std::mutex> lock(mu_);
    ending.swap(live_);
  }
  const ExecSpec& spec() const { return spec_; }

 private:
  const ExecSpec spec_;
  std::mutex mu_;
  std::uint64_t next_node_;                      // guarded by mu_
  std::vector<std::unique_ptr<Instance>> live_;  // guarded by mu_
};

// The instances this thread holds, one per live generator it has called; ended at thread
// exit, while the thread that forked them still lives (EOF rather than the death signal).
thread_local ThreadHeld<Instances, Instance> held_instances;

class ExternalGenerator final : public Generator {
 public:
  ExternalGenerator(ExecSpec spec, std::uint64_t first_node)
      : serial_(next_generator_serial()),
        width_(resolved_width(spec)) {
    spec.width = width_;  // a program printing the other width is told so at its first ID
    instances_ = std::make_shared<Instances>(std::move(spec), first_node);
    set_name("exec");
  }
  ~ExternalGenerator() override {
    held_instances.drop(serial_, /*give_back=*/false);  // finish_all() ends them all
    instances_->finish_all();
  }

  Id next() override {
    Instance& in = mine();
    if (in.taken == in.ids.size()) {
      in.ids.clear();
      in.taken = 0;
      in.program->request(instances_->spec().batch, in.ids);
    }
    return in.ids[in.taken++];
  }
  IdWidth width() const override { return width_; }
  std::string format() const override {
    const ExecSpec& s = instances_->spec();
    return fmt::format("external program '{}' ({}, time: {}{}, {} IDs per request)", s.command,
                       width_ == IdWidth::bits64 ? "64-bit" : "128-bit", name_of(s.id_time),
                       s.id_time == IdTime::layout ? " " + s.layout : "", s.batch);
  }

 private:
  Instance& mine() {
    if (Instance* held = held_instances.find(serial_)) return *held;
    Instance* instance = instances_->start();
    held_instances.add(serial_, instances_, instance);
    return *instance;
  }

  const std::uint64_t serial_;  // never reused, unlike an address
  const IdWidth width_;
  std::shared_ptr<Instances> instances_;
};

void check_spec(const ExecSpec& spec) {
  split_command(spec.command);
  if (spec.batch == 0 || spec.batch > kMaxRequest) {
    throw Error(fmt::format("--batch must be 1..{}, not {}", kMaxRequest, spec.batch));
  }
  if (spec.timeout_ms <= 0) {
    throw Error(fmt::format("--timeout-ms must be at least 1, not {}", spec.timeout_ms));
  }
  const IdWidth width = resolved_width(spec);
  if (spec.id_time == IdTime::layout) {
    if (width != IdWidth::bits64) throw Error("--id-time layout describes 64-bit IDs, not 128-bit");
    Layout::parse(spec.layout);
  }
  if (spec.id_time != IdTime::none && spec.id_time != IdTime::layout &&
      width != IdWidth::bits128) {
    throw Error(fmt::format("--id-time {} describes 128-bit IDs, not 64-bit",
                            name_of(spec.id_time)));
  }
}

}  // namespace

std::unique_ptr<Generator> make_external(const ExecSpec& spec, const GeneratorOptions& options) {
  return std::make_unique<ExternalGenerator>(spec, options.node);
}

Variant exec_variant(const ExecSpec& spec) {
  check_spec(spec);
  Variant v;
  v.name = "exec";
  v.summary = "an external program speaking the line protocol (--exec)";
  v.family = "external";
  v.width = resolved_width(spec);
  v.ordering = spec.ordering;
  v.time_based = spec.id_time != IdTime::none;
  v.uses_layout = spec.id_time == IdTime::layout;
  v.node_ids = NodeIds::per_thread;
  v.id_time = spec.id_time;
  v.defaults = MatrixDefaults{.chaos = false, .chaos_quick = false, .locality = false};
  v.make = [spec](const GeneratorOptions& options) { return make_external(spec, options); };
  return v;
}

}  // namespace idbench::external
