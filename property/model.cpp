// model.cpp — the model-based properties of the time-based generators (see model.hpp).
#include "property/model.hpp"

#include <fmt/format.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "generators/clock.hpp"
#include "generators/errors.hpp"
#include "generators/generator.hpp"
#include "generators/id.hpp"
#include "generators/layout.hpp"
#include "generators/registry.hpp"
#include "plumbing/enum_names.hpp"
#include "property/duplicates.hpp"

namespace idbench::property {
namespace {

// ---------------------------------------------------------------------------------------------
// Configuration: what one test case runs on.

// Layouts the Snowflake variants run on: presets for their units (1 ms, 10 ms) and node
// positions; Baidu's widths in 1 s units, but from a 2025 epoch, because the preset's 28 bits
// of seconds since 2016-05-20 ran out on 2024-11-20 and it refuses every clock since; and two
// tiny sequences, so that sequence overflow (a spin into the next tick, or borrow moving ahead)
// happens every few IDs instead of once per 4,096.
const std::vector<std::string> kSnowflakeLayouts = {
    "twitter",
    "sonyflake",
    "ts=28,node=22,seq=13,unit=1s,epoch=1735689600000",
    "ts=41,node=3+2,seq=3,epoch=1288834974657",
    "ts=40,node=8,seq=2,unit=10ms,low=node,epoch=1735689600000",
};

// Layouts with generation bits, for clock-sequence: 1 to 3 gen bits, tiny sequences among
// them, node high and low.
const std::vector<std::string> kGenLayouts = {
    "ts=41,node=8,gen=2,seq=12,epoch=1288834974657",
    "ts=41,node=3,gen=1,seq=3,epoch=1288834974657",
    "ts=40,node=6,gen=2,seq=2,unit=10ms,low=node,epoch=1735689600000",
    "ts=41,node=4,gen=3,seq=4,epoch=1288834974657",
};

// The ManualClock starts somewhere in 2026, after every epoch above and long before any
// layout's lifetime ends, so a history of a few hundred seconds either way stays in range.
constexpr std::int64_t kEarliestStartNs = 1'769'904'000'000'000'000;  // 2026-02-01
constexpr std::int64_t kLatestStartNs = 1'796'083'200'000'000'000;    // 2026-12-01

// How far one Advance or StepBack may move the clock: "a few seconds", as NTP steps and the
// leap second are.
constexpr std::int64_t kMaxJumpMs = 3'000;

constexpr int kMaxIdsPerGenerate = 5'000;

struct Config {
  // The variant's description, which alone decides how its IDs are read: the registry's
  // `id_time` (a layout's tick or UUIDv7 ms) and `ordering` (ordered within a tick or not).
  const Variant* variant = nullptr;
  Policy policy;
  RestartMode restart = RestartMode::from_mark;
  std::string layout_name;
  std::optional<Layout> layout;  // layout IDs only
  std::uint64_t node = 0;
  std::int64_t unit_ms = 1;
  std::int64_t epoch_ms = 0;
  // When the sequence of a tick is spent. For UUIDv7 the real counter starts at a random seed
  // with 2^41 of headroom (uuidv7.cpp) and a test issues at most a few hundred thousand IDs,
  // so only the resumed state ("the mark's tick, all used") is ever spent: the model counts
  // from 0 and calls only the maximum spent.
  std::uint64_t max_seq = 0;
  std::uint64_t max_gen = 0;  // clock-sequence: the layout's generations 0 … max_gen
  std::int64_t relax_step_ns = 100'000;
  std::int64_t start_wall_ns = 0;
  std::int64_t max_jump_ticks = 1;

  // A layout ID carries its sequence, counted from 0 in every tick: an unsafe reset re-issues
  // exactly the IDs the model can name. A UUIDv7's counter starts at random instead.
  bool layout_ids() const { return variant->id_time == IdTime::layout; }
  bool tracks_duplicates() const { return layout_ids() && policy.kind == PolicyKind::unsafe; }
  bool ordered_within_tick() const { return variant->ordering != Ordering::k_sorted_by_tick; }
  bool clock_sequence() const { return policy.kind == PolicyKind::clock_sequence; }

  std::int64_t tick_of(std::int64_t wall_ns) const {
    return Clock::floor_div(Clock::floor_div(wall_ns, 1'000'000) - epoch_ms, unit_ms);
  }
  std::int64_t tick_start_ns(std::int64_t tick) const {
    return (epoch_ms + tick * unit_ms) * 1'000'000;
  }
  // The tick an ID carries, read as the registry says the variant carries time; a tick of its
  // own unit since its own epoch (for a UUIDv7: ms since 1970).
  std::int64_t tick_of_id(const Id& id) const {
    static const Layout kUnused =
        Layout::parse("twitter", std::numeric_limits<std::int64_t>::max());
    const std::optional<std::int64_t> ms =
        unix_ms_of(variant->id_time, id, layout ? *layout : kUnused);
    if (!ms) RC_FAIL(fmt::format("{} carries no time", to_text(id, width())));
    return Clock::floor_div(*ms - epoch_ms, unit_ms);
  }
  IdWidth width() const { return variant->width; }
};

std::ostream& operator<<(std::ostream& os, const Config& c) {
  os << fmt::format("{} policy {} restart {} node {} relax {} ns start {} ns", c.variant->name,
                    c.policy.name(),
                    c.restart == RestartMode::from_mark            ? "from-mark"
                    : c.restart == RestartMode::after_clock_passes ? "after-clock-passes"
                                                                   : "from-stable-storage",
                    c.node, c.relax_step_ns, c.start_wall_ns);
  if (c.layout) os << " layout " << c.layout_name << " [" << c.layout->spec() << "]";
  return os;
}

Config draw_config(std::string_view variant, PolicyKind kind, RestartMode restart) {
  Config c;
  c.variant = find_variant(variant);
  if (c.variant == nullptr || !c.variant->time_based || c.variant->id_time == IdTime::none) {
    throw Error(
        fmt::format("the model covers time-based variants whose IDs carry their time; "
                    "'{}' is none",
                    variant));
  }
  c.restart = restart;
  c.policy = Policy::of(kind);
  if (c.clock_sequence() != (restart == RestartMode::from_stable_storage) &&
      restart != RestartMode::from_mark) {
    throw Error("from_stable_storage is clock-sequence's restart mode; after_clock_passes is not");
  }
  if (c.clock_sequence() && !c.layout_ids()) {
    throw Error(fmt::format("the clock-sequence model covers layouts with gen bits; '{}' has none",
                            variant));
  }
  // Bounds around the defaults (5 ms, 1 s), and 0: a bounded wait that never waits, a borrow
  // that never runs ahead.
  if (kind == PolicyKind::bounded_wait) {
    c.policy.bound_ms = *rc::gen::element<std::int64_t>(0, 1, 5, 20, 3'000);
  } else if (kind == PolicyKind::borrow) {
    c.policy.bound_ms = *rc::gen::element<std::int64_t>(0, 10, 1'000, 5'000);
  }
  c.relax_step_ns = *rc::gen::element<std::int64_t>(100'000, 1'000'000);
  c.start_wall_ns = *rc::gen::inRange(kEarliestStartNs, kLatestStartNs);
  if (c.layout_ids()) {
    c.layout_name = *rc::gen::elementOf(c.clock_sequence() ? kGenLayouts : kSnowflakeLayouts);
    c.layout = Layout::parse(c.layout_name, Clock::floor_div(c.start_wall_ns, 1'000'000));
    c.node = *rc::gen::inRange<std::uint64_t>(0, c.layout->max_node() + 1);
    c.unit_ms = c.layout->unit_ms();
    c.epoch_ms = c.layout->epoch_unix_ms();
    c.max_seq = c.layout->max_seq();
    c.max_gen = c.layout->max_gen();
  } else {
    c.max_seq = std::numeric_limits<std::uint64_t>::max();
  }
  c.max_jump_ticks = std::max<std::int64_t>(1, kMaxJumpMs / c.unit_ms);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The model: the policies as policy.hpp states them.

struct TickSeq {
  std::int64_t tick = 0;
  std::uint64_t seq = 0;
  std::uint64_t gen = 0;  // clock-sequence: relative to the instance's unknown first one
};

// clock-sequence's memory, written from policy.hpp's rule: generations are used in a cycle;
// the lap is first … gen; generations outside it issued only ticks <= floor; high is the
// highest tick issued. Generation numbers are relative (see TickSeq).
struct Lap {
  std::uint64_t gen = 0;
  std::uint64_t first = 0;
  std::int64_t floor = -1;
  std::int64_t high = -1;
};

enum class Refusal { none, clock_moved_backwards, wait_bound_exceeded, borrow_limit_exceeded };

// The words are the ClockError types' names, as a failing case prints them.
constexpr std::array<plumbing::Named<Refusal>, 4> kRefusalNames = {{
    {Refusal::none, "none"},
    {Refusal::clock_moved_backwards, "ClockMovedBackwards"},
    {Refusal::wait_bound_exceeded, "WaitBoundExceeded"},
    {Refusal::borrow_limit_exceeded, "BorrowLimitExceeded"},
}};
static_assert(plumbing::one_to_one(kRefusalNames));

std::string_view name_of(Refusal r) { return plumbing::name_in(kRefusalNames, r); }

struct Model {
  std::shared_ptr<const Config> cfg;
  std::int64_t wall_ns = 0;
  std::int64_t steady_ns = 0;             // ManualClock's steady reading starts at 0
  std::optional<TickSeq> last;            // the current instance's (tick, seq), issued or resumed
  std::optional<std::int64_t> prev_tick;  // the tick of the current instance's previous ID
  std::optional<std::int64_t> high_tick;  // the highest tick any instance issued from
  Lap lap;                                // clock-sequence only
  // Unsafe Snowflake only. Every tick is entered at seq 0 and counted up, so the seqs ever
  // issued from a tick are exactly 0 … its top seq. Sorted by tick; a vector rather than a map
  // because RapidCheck copies the model while it generates and shrinks, and a vector copies
  // in one block.
  std::vector<TickSeq> top_seq;
};

// The top seq issued from `tick`, if any.
std::optional<std::uint64_t> top_seq_of(const std::vector<TickSeq>& top, std::int64_t tick) {
  const auto it = std::lower_bound(top.begin(), top.end(), tick,
                                   [](const TickSeq& s, std::int64_t t) { return s.tick < t; });
  if (it == top.end() || it->tick != tick) return std::nullopt;
  return it->seq;
}

// What one Generate(n) does, as the model predicts it.
struct Outcome {
  std::vector<TickSeq> issued;
  Refusal refusal = Refusal::none;
  std::int64_t refusal_ms = 0;  // how far behind (refuse, bounded-wait) or ahead (borrow)
  std::int64_t wall_ns = 0;
  std::int64_t steady_ns = 0;
  std::optional<TickSeq> last;
  std::optional<std::int64_t> prev_tick;
  Lap lap;
  std::size_t duplicates = 0;  // IDs equal to one issued before
  std::size_t backward = 0;    // IDs from a tick below their predecessor's in the instance
};

// One Generate(n) run through the model, one ID at a time.
class Simulation {
 public:
  explicit Simulation(const Model& m) : m_(m), c_(*m.cfg) {
    o_.wall_ns = m.wall_ns;
    o_.steady_ns = m.steady_ns;
    o_.last = m.last;
    o_.prev_tick = m.prev_tick;
    o_.lap = m.lap;
  }

  Outcome run(int count) && {
    o_.issued.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count && o_.refusal == Refusal::none; ++i) next_id();
    return std::move(o_);
  }

 private:
  // One next(): loops on the clock until it issues or refuses.
  void next_id() {
    wait_started_ns_.reset();
    issued_ = false;
    while (!issued_ && o_.refusal == Refusal::none) {
      const std::int64_t now = c_.tick_of(o_.wall_ns);
      if (!o_.last || now > o_.last->tick) {
        issue({now, 0});
      } else if (now == o_.last->tick) {
        same_tick(now);
      } else {
        behind(now);
      }
    }
  }

  void same_tick(std::int64_t now) {
    const TickSeq last = *o_.last;
    if (last.seq < c_.max_seq) {
      issue({now, last.seq + 1});
    } else if (c_.policy.kind == PolicyKind::borrow) {
      borrow(now);
    } else {
      relax();  // the tick's sequence is spent: spin into the next tick
    }
  }

  // The clock is behind the last tick: the policy decides.
  void behind(std::int64_t now) {
    const std::int64_t behind_ms = (o_.last->tick - now) * c_.unit_ms;
    switch (c_.policy.kind) {
      case PolicyKind::refuse:
        refuse(Refusal::clock_moved_backwards, behind_ms);
        break;
      case PolicyKind::wait:
        relax();
        break;
      case PolicyKind::clock_sequence:
        change_generation(now);
        break;
      case PolicyKind::bounded_wait:
        if (!wait_started_ns_) wait_started_ns_ = o_.steady_ns;
        if (behind_ms > c_.policy.bound_ms ||
            o_.steady_ns - *wait_started_ns_ > c_.policy.bound_ms * 1'000'000) {
          refuse(Refusal::wait_bound_exceeded, behind_ms);
        } else {
          relax();
        }
        break;
      case PolicyKind::borrow:
        borrow(now);
        break;
      case PolicyKind::unsafe:
        issue({now, 0});
        break;
    }
  }

  // borrow: the (tick, seq) after the last, a tick ahead once the sequence is spent, as long
  // as that is no further ahead of the clock than the bound; at the bound it waits for the
  // clock if the last tick is within the bound, and fails only if it is not.
  void borrow(std::int64_t now) {
    const TickSeq last = *o_.last;
    const TickSeq next =
        last.seq < c_.max_seq ? TickSeq{last.tick, last.seq + 1} : TickSeq{last.tick + 1, 0};
    const std::int64_t ahead_ms = (next.tick - now) * c_.unit_ms;
    if (ahead_ms > c_.policy.bound_ms && (last.tick - now) * c_.unit_ms <= c_.policy.bound_ms) {
      relax();  // spent sequence at the bound: wait for the clock rather than fail
    } else if (ahead_ms > c_.policy.bound_ms) {
      refuse(Refusal::borrow_limit_exceeded, ahead_ms);
    } else {
      issue(next);
    }
  }

  // clock-sequence behind the clock: the next generation if it is outside the lap and the
  // clock above the floor, else wait.
  void change_generation(std::int64_t now) {
    Lap& lap = o_.lap;
    const std::uint64_t next = lap.gen == c_.max_gen ? 0 : lap.gen + 1;
    if (next == lap.first || now <= lap.floor) {
      relax();
      return;
    }
    lap.gen = next;
    issue({now, 0, next});
  }

  // A spinning generator calls relax(), on which the ManualClock lets its step of time pass.
  void relax() {
    o_.wall_ns += c_.relax_step_ns;
    o_.steady_ns += c_.relax_step_ns;
  }

  void issue(TickSeq s) {
    if (c_.clock_sequence()) {
      Lap& lap = o_.lap;
      s.gen = lap.gen;
      const std::uint64_t next = lap.gen == c_.max_gen ? 0 : lap.gen + 1;
      if (s.tick > lap.high && next == lap.first) {  // an exhausted lap, renewed
        lap.first = lap.gen;
        lap.floor = lap.high;
      }
      lap.high = std::max(lap.high, s.tick);
    }
    if (o_.prev_tick && s.tick < *o_.prev_tick) ++o_.backward;
    // Lookups against the history before this batch are enough: within one batch the clock
    // only moves forward, so after at most one reset the batch's (tick, seq) only increase.
    if (c_.tracks_duplicates()) {
      const auto top = top_seq_of(m_.top_seq, s.tick);
      if (top && s.seq <= *top) ++o_.duplicates;
    }
    o_.issued.push_back(s);
    o_.last = s;
    o_.prev_tick = s.tick;
    issued_ = true;
  }

  void refuse(Refusal r, std::int64_t ms) {
    o_.refusal = r;
    o_.refusal_ms = ms;
  }

  const Model& m_;
  const Config& c_;
  Outcome o_;
  std::optional<std::int64_t> wait_started_ns_;  // on the steady clock, this next()'s wait
  bool issued_ = false;
};

Outcome simulate(const Model& m, int count) { return Simulation(m).run(count); }

void commit(Model& m, const Outcome& o) {
  m.wall_ns = o.wall_ns;
  m.steady_ns = o.steady_ns;
  m.last = o.last;
  m.prev_tick = o.prev_tick;
  m.lap = o.lap;
  for (const TickSeq& s : o.issued) m.high_tick = std::max(m.high_tick.value_or(s.tick), s.tick);
  if (!m.cfg->tracks_duplicates()) return;
  // Within a batch the ticks never decrease (see simulate), so the batch's top seq per tick is
  // its last entry for that tick, and one merge folds it into the sorted history.
  std::vector<TickSeq> batch;
  for (const TickSeq& s : o.issued) {
    if (!batch.empty() && batch.back().tick == s.tick) {
      batch.back().seq = std::max(batch.back().seq, s.seq);
    } else {
      batch.push_back(s);
    }
  }
  std::vector<TickSeq> merged;
  merged.reserve(m.top_seq.size() + batch.size());
  auto a = m.top_seq.begin();
  auto b = batch.begin();
  while (a != m.top_seq.end() || b != batch.end()) {
    if (b == batch.end() || (a != m.top_seq.end() && a->tick < b->tick)) {
      merged.push_back(*a++);
    } else if (a == m.top_seq.end() || b->tick < a->tick) {
      merged.push_back(*b++);
    } else {
      merged.push_back({a->tick, std::max(a->seq, b->seq)});
      ++a;
      ++b;
    }
  }
  m.top_seq = std::move(merged);
}

// ---------------------------------------------------------------------------------------------
// The system under test, and what it has observed.

// Stable storage in memory: what the generator stored last, per node id.
class MemoryGenerationStore final : public GenerationStore {
 public:
  std::optional<Generations> load(std::uint64_t node) override {
    const auto it = stored_.find(node);
    if (it == stored_.end()) return std::nullopt;
    return it->second;
  }
  void store(std::uint64_t node, const Generations& gens) override { stored_[node] = gens; }

 private:
  std::map<std::uint64_t, Generations> stored_;  // one thread drives the generator
};

struct Sut {
  Sut(std::shared_ptr<const Config> c, GeneratorFactory make)
      : cfg(std::move(c)),
        clock(std::make_shared<ManualClock>(cfg->start_wall_ns, cfg->relax_step_ns)),
        make_gen(std::move(make)) {
    restart(false);
  }

  void restart(bool from_mark) {
    GeneratorOptions opts;
    if (cfg->restart == RestartMode::from_stable_storage) {
      opts.generation_store = store;
    } else {
      gen_offset.reset();  // a random clock sequence again: learnt from the next ID
    }
    if (cfg->layout) opts.layout = *cfg->layout;
    opts.policy = cfg->policy;
    opts.node = cfg->node;
    opts.clock = clock;
    last_tick.reset();
    if (from_mark && high_tick) {
      opts.resume_after_unix_ms = cfg->epoch_ms + *high_tick * cfg->unit_ms;
      last_tick = high_tick;
    }
    // The old instance goes first, as the process holding it dies before the new one starts.
    gen.reset();
    gen = make_gen(cfg->variant->name, opts);
    instance_prev_id.reset();
    instance_prev_tick.reset();
  }

  std::shared_ptr<const Config> cfg;
  std::shared_ptr<ManualClock> clock;
  GeneratorFactory make_gen;
  std::shared_ptr<MemoryGenerationStore> store = std::make_shared<MemoryGenerationStore>();
  // clock-sequence: the instance's first generation, which the model counts from (learnt by
  // the comparison, hence mutable).
  mutable std::optional<std::uint64_t> gen_offset;
  std::unique_ptr<Generator> gen;
  DuplicateFinder finder;
  // The tick the current instance must not issue below: its last ID's, or the resumed mark's.
  std::optional<std::int64_t> last_tick;
  std::optional<Id> instance_prev_id;
  std::optional<std::int64_t> instance_prev_tick;
  std::optional<Id> history_prev_id;
  std::optional<std::int64_t> history_prev_tick;
  std::optional<std::int64_t> high_tick;
  // What the history exercised, for the case distribution RapidCheck prints.
  std::size_t refusals = 0;
  std::size_t waits = 0;
  std::size_t borrowed_ahead = 0;
  std::size_t backward = 0;
};

using ModelCommand = rc::state::Command<Model, Sut>;

// ---------------------------------------------------------------------------------------------
// Commands.

// Mostly a few ticks, sometimes up to a few seconds: small steps land on ticks the generator
// has just issued from, where the policies differ.
rc::Gen<std::int64_t> jump_ticks(std::int64_t min, std::int64_t max) {
  return rc::gen::weightedOneOf<std::int64_t>(
      {{3, rc::gen::inRange<std::int64_t>(min, std::min(max, min + 3) + 1)},
       {1, rc::gen::inRange<std::int64_t>(min, max + 1)}});
}

struct Advance final : ModelCommand {
  explicit Advance(const Model& m)
      : ticks(*jump_ticks(0, m.cfg->max_jump_ticks)),
        jitter_ns(*rc::gen::inRange<std::int64_t>(0, 1'000'000)),
        ns(ticks * m.cfg->unit_ms * 1'000'000 + jitter_ns) {}

  void apply(Model& m) const override {
    m.wall_ns += ns;
    m.steady_ns += ns;
  }
  void run(const Model&, Sut& sut) const override { sut.clock->advance_ns(ns); }
  void show(std::ostream& os) const override {
    os << "Advance(" << ticks << " ticks + " << jitter_ns << " ns)";
  }

  std::int64_t ticks;
  std::int64_t jitter_ns;
  std::int64_t ns;
};

struct Stay final : ModelCommand {
  void show(std::ostream& os) const override { os << "Stay"; }
};

struct StepBack final : ModelCommand {
  explicit StepBack(const Model& m)
      : ticks(*jump_ticks(1, m.cfg->max_jump_ticks)), ms(ticks * m.cfg->unit_ms) {}

  // A new instance without the mark knows nothing of the history until it issues its first
  // ID. Stepping the clock back in between is a restart during a regression, which only the
  // mark covers (the from_mark properties): without it the instance re-issues IDs.
  void checkPreconditions(const Model& m) const override {
    if (m.cfg->restart == RestartMode::after_clock_passes) RC_PRE(m.last || !m.high_tick);
  }
  // An NTP step moves the wall clock only; the steady clock keeps counting.
  void apply(Model& m) const override { m.wall_ns -= ms * 1'000'000; }
  void run(const Model&, Sut& sut) const override { sut.clock->step_wall_ms(-ms); }
  void show(std::ostream& os) const override { os << "StepBack(" << ticks << " ticks)"; }

  std::int64_t ticks;
  std::int64_t ms;
};

struct Restart final : ModelCommand {
  explicit Restart(const Model& m) : from_mark(m.cfg->restart != RestartMode::after_clock_passes) {}

  void checkPreconditions(const Model& m) const override {
    if (!from_mark) RC_PRE(!m.high_tick || m.cfg->tick_of(m.wall_ns) > *m.high_tick);
  }
  void apply(Model& m) const override {
    m.last.reset();
    if (from_mark && m.high_tick) m.last = TickSeq{*m.high_tick, m.cfg->max_seq, m.lap.gen};
    m.prev_tick.reset();
    if (m.cfg->restart == RestartMode::from_stable_storage) {
      // The stored generations; every tick up to the mark counts as issued.
      m.lap.high = m.high_tick.value_or(-1);
    } else {
      // A random clock sequence, counted from 0 again; nothing at or below the mark is free.
      const std::int64_t mark = m.high_tick.value_or(-1);
      m.lap = {0, 0, mark, mark};
    }
  }
  void run(const Model&, Sut& sut) const override { sut.restart(from_mark); }
  void show(std::ostream& os) const override {
    os << (from_mark ? "Restart(from the mark)" : "Restart(clock past every issued tick)");
  }

  bool from_mark;
};

struct Generate final : ModelCommand {
  Generate() : count(*rc::gen::inRange(1, kMaxIdsPerGenerate + 1)) {}

  void apply(Model& m) const override { commit(m, simulate(m, count)); }
  void run(const Model& s0, Sut& sut) const override;
  void show(std::ostream& os) const override { os << "Generate(" << count << ")"; }

  int count;
};

[[noreturn]] void fail(const Sut& sut, int call, const std::string& what) {
  RC_FAIL(fmt::format("call {} of a Generate: {} (clock at tick {})", call, what,
                      sut.cfg->tick_of(sut.clock->wall_ns())));
}

// One call to next(): the ID, or the refusal it threw.
struct Call {
  Id id;
  Refusal refusal = Refusal::none;
  std::int64_t refusal_ms = 0;
};

Call call_next(Generator& gen) {
  Call c;
  try {
    c.id = gen.next();
  } catch (const ClockMovedBackwards& e) {
    c.refusal = Refusal::clock_moved_backwards;
    c.refusal_ms = e.behind_ms();
  } catch (const WaitBoundExceeded& e) {
    c.refusal = Refusal::wait_bound_exceeded;
    c.refusal_ms = e.behind_ms();
  } catch (const BorrowLimitExceeded&) {
    c.refusal = Refusal::borrow_limit_exceeded;
  }
  return c;
}

// What each policy promises about refusing, checked against the clock and the generator's own
// last tick alone, before the model is asked. `behind_ms` is 0 unless the clock was behind.
void check_refusal(const Sut& sut, int call, const Call& got, bool behind, std::int64_t behind_ms) {
  const Policy& policy = sut.cfg->policy;
  switch (policy.kind) {
    case PolicyKind::refuse:
      if ((got.refusal == Refusal::clock_moved_backwards) != behind) {
        fail(sut, call,
             fmt::format("refuse threw {} with the clock {} ms behind the last tick",
                         name_of(got.refusal), behind_ms));
      }
      if (behind && got.refusal_ms != behind_ms) {
        fail(sut, call,
             fmt::format("ClockMovedBackwards says {} ms, the clock is {} ms behind",
                         got.refusal_ms, behind_ms));
      }
      break;
    case PolicyKind::bounded_wait: {
      const bool too_far = behind && behind_ms > policy.bound_ms;
      if ((got.refusal == Refusal::wait_bound_exceeded) != too_far) {
        fail(sut, call,
             fmt::format("bounded-wait ({} ms) threw {} with the clock {} ms behind",
                         policy.bound_ms, name_of(got.refusal), behind_ms));
      }
      if (too_far && got.refusal_ms != behind_ms) {
        fail(sut, call,
             fmt::format("WaitBoundExceeded says {} ms, the clock is {} ms behind", got.refusal_ms,
                         behind_ms));
      }
      break;
    }
    case PolicyKind::wait:
    case PolicyKind::unsafe:
    case PolicyKind::clock_sequence:
      if (got.refusal != Refusal::none) {
        fail(sut, call, fmt::format("threw {}", name_of(got.refusal)));
      }
      break;
    case PolicyKind::borrow:
      if (got.refusal != Refusal::none && got.refusal != Refusal::borrow_limit_exceeded) {
        fail(sut, call, fmt::format("borrow threw {}", name_of(got.refusal)));
      }
      break;
  }
}

// What one Generate observed, for the comparison with the model.
struct Observed {
  std::vector<Id> ids;
  Refusal refusal = Refusal::none;
  std::int64_t refusal_ms = 0;
  std::size_t misordered = 0;  // IDs not above their predecessor in the instance
  std::size_t backward = 0;    // IDs from a tick below their predecessor's in the instance
};

// What each policy promises about an issued ID (waiting, borrowing, order across the whole
// history), then the ID becomes the Sut's latest. `behind` says the clock was behind before
// the call.
void check_issued(Sut& sut, int call, const Id& id, bool behind, Observed& seen) {
  const Config& c = *sut.cfg;
  const Policy& policy = c.policy;
  const std::int64_t tick = c.tick_of_id(id);
  const std::int64_t now = c.tick_of(sut.clock->wall_ns());
  if ((policy.kind == PolicyKind::wait || policy.kind == PolicyKind::bounded_wait) && behind &&
      tick < *sut.last_tick) {
    fail(sut, call,
         fmt::format("{} issued from tick {} below its last tick {} instead of waiting",
                     policy.name(), tick, *sut.last_tick));
  }
  if (policy.kind == PolicyKind::borrow) {
    const std::int64_t ahead_ms = (tick - now) * c.unit_ms;
    if (ahead_ms > policy.bound_ms) {
      fail(sut, call,
           fmt::format("borrow issued {} ms ahead of the clock, beyond its bound of {} ms",
                       ahead_ms, policy.bound_ms));
    }
    if (ahead_ms > 0) ++sut.borrowed_ahead;
  }
  if (sut.instance_prev_tick && tick < *sut.instance_prev_tick) ++seen.backward;
  if (sut.instance_prev_id && id <= *sut.instance_prev_id) ++seen.misordered;
  // Every policy but unsafe keeps order across the whole history, restarts included: the
  // mark makes a new instance start after every issued tick, and so does a clock past them.
  // clock-sequence trades that order for availability: after a step back it issues at the
  // clock's time under a new generation (uniqueness is the finder's to check).
  if (policy.promises_uniqueness() && !c.clock_sequence() && sut.history_prev_id) {
    const bool in_order =
        c.ordered_within_tick() ? id > *sut.history_prev_id : tick >= *sut.history_prev_tick;
    if (!in_order) {
      fail(sut, call,
           fmt::format("{} after {}: out of order under {}", to_text(id, c.width()),
                       to_text(*sut.history_prev_id, c.width()), policy.name()));
    }
  }
  seen.ids.push_back(id);
  sut.instance_prev_id = sut.history_prev_id = id;
  sut.instance_prev_tick = sut.history_prev_tick = sut.last_tick = tick;
  sut.high_tick = std::max(sut.high_tick.value_or(tick), tick);
}

// Up to `count` calls, stopping at the first refusal, each checked as it comes.
Observed observe(Sut& sut, int count) {
  const Config& c = *sut.cfg;
  Observed seen;
  seen.ids.reserve(static_cast<std::size_t>(count));
  for (int call = 0; call < count; ++call) {
    const std::int64_t before = c.tick_of(sut.clock->wall_ns());
    const bool behind = sut.last_tick && before < *sut.last_tick;
    const std::int64_t behind_ms = behind ? (*sut.last_tick - before) * c.unit_ms : 0;
    const Call got = call_next(*sut.gen);
    if (behind && got.refusal == Refusal::none) ++sut.waits;
    check_refusal(sut, call, got, behind, behind_ms);
    if (got.refusal != Refusal::none) {
      ++sut.refusals;
      seen.refusal = got.refusal;
      seen.refusal_ms = got.refusal_ms;
      break;
    }
    check_issued(sut, call, got.id, behind, seen);
  }
  sut.backward += seen.backward;
  return seen;
}

// clock-sequence: the ID's generation is the model's, counted from the instance's first (a
// random clock sequence, learnt from its first ID).
void check_generation(const Sut& sut, std::size_t i, std::uint64_t got, std::uint64_t want) {
  const std::uint64_t count = sut.cfg->max_gen + 1;
  if (!sut.gen_offset) sut.gen_offset = (got + count - want) % count;
  if ((want + *sut.gen_offset) % count != got) {
    RC_FAIL(fmt::format("ID {} has generation {}; the model says {} (+ {})", i, got, want,
                        *sut.gen_offset));
  }
}

// The generator against the model: the same refusal, the same (tick, seq, node) per ID, the
// clock left at the same place, and (unsafe) the predicted duplicates and order violations.
void compare_with_model(const Sut& sut, const Observed& seen, const Outcome& want,
                        std::size_t duplicates) {
  const Config& c = *sut.cfg;
  RC_ASSERT(name_of(seen.refusal) == name_of(want.refusal));
  if (seen.refusal != Refusal::borrow_limit_exceeded) RC_ASSERT(seen.refusal_ms == want.refusal_ms);
  RC_ASSERT(seen.ids.size() == want.issued.size());
  for (std::size_t i = 0; i < seen.ids.size(); ++i) {
    const Id& id = seen.ids[i];
    const std::int64_t tick = c.tick_of_id(id);
    if (tick != want.issued[i].tick) {
      RC_FAIL(fmt::format("ID {} of {} is from tick {}; the model says tick {}", i, seen.ids.size(),
                          tick, want.issued[i].tick));
    }
    if (c.clock_sequence()) check_generation(sut, i, c.layout->decode(id.lo).gen, want.issued[i].gen);
    if (c.layout_ids()) {
      const LayoutFields f = c.layout->decode(id.lo);
      if (f.seq != want.issued[i].seq || f.node != c.node) {
        RC_FAIL(fmt::format("ID {} of {} has seq {} node {}; the model says seq {} node {}", i,
                            seen.ids.size(), f.seq, f.node, want.issued[i].seq, c.node));
      }
    }
  }
  RC_ASSERT(sut.clock->wall_ns() == want.wall_ns);
  RC_ASSERT(sut.clock->steady_ns() == want.steady_ns);
  // Unsafe is caught: every duplicate the model predicts is found, and every ID issued from
  // below its predecessor's tick is an order violation the check sees.
  RC_ASSERT(duplicates == want.duplicates);
  RC_ASSERT(seen.backward == want.backward);
  if (c.ordered_within_tick()) RC_ASSERT(seen.misordered == seen.backward);
}

void Generate::run(const Model& s0, Sut& sut) const {
  const Policy& policy = sut.cfg->policy;
  const Outcome want = simulate(s0, count);
  const Observed seen = observe(sut, count);
  // Duplicates, by the same finder the stress tests and duplicates_test.cpp use.
  const std::size_t duplicates = sut.finder.add(seen.ids);
  if (policy.promises_uniqueness() && duplicates != 0) {
    RC_FAIL(fmt::format("{} issued {} duplicates, e.g. {}", policy.name(), duplicates,
                        sut.finder.describe(sut.cfg->width())));
  }
  compare_with_model(sut, seen, want, duplicates);
}

// After the random history, one deterministic step back of a single tick: the smallest
// regression there is must already be caught.
void expose_unsafe(Sut& sut) {
  const Config& c = *sut.cfg;
  const Id a = sut.gen->next();
  const std::int64_t t = c.tick_of_id(a);
  sut.clock->set_wall_ns(c.tick_start_ns(t + 1));
  const Id b = sut.gen->next();
  sut.clock->set_wall_ns(c.tick_start_ns(t));
  const Id again = sut.gen->next();
  const std::size_t duplicates = sut.finder.add(std::vector<Id>{a, b, again});
  if (c.layout_ids()) {
    // Every tick was entered at seq 0, so (t, 0) was issued before and is issued again.
    if (duplicates == 0) {
      RC_FAIL(
          fmt::format("unsafe stepped back to tick {} and the finder saw no duplicate: {} {} {}", t,
                      to_text(a, c.width()), to_text(b, c.width()), to_text(again, c.width())));
    }
  } else {
    if (again > b) {
      RC_FAIL(fmt::format("unsafe stepped back to ms {} and stayed in order: {} then {}", t,
                          to_text(b, c.width()), to_text(again, c.width())));
    }
    RC_ASSERT(c.tick_of_id(again) == t);
  }
}

}  // namespace

void check_model(std::string_view variant, PolicyKind policy, RestartMode restart,
                 const GeneratorFactory& make) {
  const auto cfg = std::make_shared<const Config>(draw_config(variant, policy, restart));
  RC_LOG() << *cfg << "\n";
  Model initial;
  initial.cfg = cfg;
  initial.wall_ns = cfg->start_wall_ns;
  Sut sut(cfg, make);
  rc::state::check(initial, sut,
                   rc::state::gen::execOneOfWithArgs<Advance, Stay, StepBack, Generate, Restart>());

  RC_CLASSIFY(sut.refusals > 0, "refused");
  RC_CLASSIFY(sut.waits > 0, "issued after a step back");
  RC_CLASSIFY(sut.borrowed_ahead > 0, "borrowed ahead");
  if (policy == PolicyKind::unsafe) {
    RC_CLASSIFY(sut.finder.duplicates() > 0, "history duplicated");
    RC_CLASSIFY(sut.backward > 0, "history went backwards");
    expose_unsafe(sut);
  }
}

}  // namespace idbench::property
