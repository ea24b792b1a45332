#include "property/model.hpp"

#include <fmt/format.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <cstdint>
#include <limits>
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
#include "property/duplicates.hpp"

namespace idbench::property {
namespace {

// ---------------------------------------------------------------------------------------------
// Configuration: what one test case runs on.

enum class Family { snowflake, uuidv7, uuidv7_random };

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

// The ManualClock starts somewhere in 2026, after every epoch above and long before any
// layout's lifetime ends, so a history of a few hundred seconds either way stays in range.
constexpr std::int64_t kEarliestStartNs = 1'769'904'000'000'000'000;  // 2026-02-01
constexpr std::int64_t kLatestStartNs = 1'796'083'200'000'000'000;    // 2026-12-01

// How far one Advance or StepBack may move the clock: "a few seconds", as NTP steps and the
// leap second are (BRIEF §3).
constexpr std::int64_t kMaxJumpMs = 3'000;

constexpr int kMaxIdsPerGenerate = 5'000;

struct Config {
  std::string variant;
  Family family = Family::snowflake;
  Policy policy;
  RestartMode restart = RestartMode::from_mark;
  std::string layout_name;
  std::optional<Layout> layout;  // Snowflake family only
  std::uint64_t node = 0;
  std::int64_t unit_ms = 1;
  std::int64_t epoch_ms = 0;
  // When the sequence of a tick is spent. For UUIDv7 the real counter starts at a random seed
  // with 2^41 of headroom (uuidv7.cpp) and a test issues at most a few hundred thousand IDs,
  // so only the resumed state ("the mark's tick, all used") is ever spent: the model counts
  // from 0 and calls only the maximum spent.
  std::uint64_t max_seq = 0;
  std::int64_t relax_step_ns = 100'000;
  std::int64_t start_wall_ns = 0;
  std::int64_t max_jump_ticks = 1;

  bool tracks_duplicates() const {
    return family == Family::snowflake && policy.kind == PolicyKind::unsafe;
  }
  bool ordered_within_tick() const { return family != Family::uuidv7_random; }

  std::int64_t tick_of(std::int64_t wall_ns) const {
    return Clock::floor_div(Clock::floor_div(wall_ns, 1'000'000) - epoch_ms, unit_ms);
  }
  std::int64_t tick_start_ns(std::int64_t tick) const {
    return (epoch_ms + tick * unit_ms) * 1'000'000;
  }
  std::int64_t tick_of_id(const Id& id) const {
    if (family == Family::snowflake) return layout->decode(id.lo).tick;
    return static_cast<std::int64_t>(id.hi >> 16);  // RFC 9562 §5.7: unix_ts_ms is the top 48
  }
  IdWidth width() const { return family == Family::snowflake ? IdWidth::bits64 : IdWidth::bits128; }
};

std::ostream& operator<<(std::ostream& os, const Config& c) {
  os << fmt::format("{} policy {} restart {} node {} relax {} ns start {} ns", c.variant,
                    c.policy.name(),
                    c.restart == RestartMode::from_mark ? "from-mark" : "after-clock-passes",
                    c.node, c.relax_step_ns, c.start_wall_ns);
  if (c.layout) os << " layout " << c.layout_name << " [" << c.layout->spec() << "]";
  return os;
}

Config draw_config(std::string_view variant, PolicyKind kind, RestartMode restart) {
  Config c;
  c.variant = std::string(variant);
  c.family = variant == "uuidv7"          ? Family::uuidv7
             : variant == "uuidv7-random" ? Family::uuidv7_random
                                          : Family::snowflake;
  c.restart = restart;
  c.policy = Policy::of(kind);
  // Bounds around the defaults (5 ms, 1 s), and 0: a bounded wait that never waits, a borrow
  // that never runs ahead.
  if (kind == PolicyKind::bounded_wait) {
    c.policy.bound_ms = *rc::gen::element<std::int64_t>(0, 1, 5, 20, 3'000);
  } else if (kind == PolicyKind::borrow) {
    c.policy.bound_ms = *rc::gen::element<std::int64_t>(0, 10, 1'000, 5'000);
  }
  c.relax_step_ns = *rc::gen::element<std::int64_t>(100'000, 1'000'000);
  c.start_wall_ns = *rc::gen::inRange(kEarliestStartNs, kLatestStartNs);
  if (c.family == Family::snowflake) {
    c.layout_name = *rc::gen::elementOf(kSnowflakeLayouts);
    c.layout = Layout::parse(c.layout_name, Clock::floor_div(c.start_wall_ns, 1'000'000));
    c.node = *rc::gen::inRange<std::uint64_t>(0, c.layout->max_node() + 1);
    c.unit_ms = c.layout->unit_ms();
    c.epoch_ms = c.layout->epoch_unix_ms();
    c.max_seq = c.layout->max_seq();
  } else {
    c.max_seq = std::numeric_limits<std::uint64_t>::max();
  }
  c.max_jump_ticks = std::max<std::int64_t>(1, kMaxJumpMs / c.unit_ms);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The model: the policies as BRIEF §2 and policy.hpp state them.

struct TickSeq {
  std::int64_t tick = 0;
  std::uint64_t seq = 0;
};

enum class Refusal { none, clock_moved_backwards, wait_bound_exceeded, borrow_limit_exceeded };

std::string_view name_of(Refusal r) {
  switch (r) {
    case Refusal::none:
      return "none";
    case Refusal::clock_moved_backwards:
      return "ClockMovedBackwards";
    case Refusal::wait_bound_exceeded:
      return "WaitBoundExceeded";
    case Refusal::borrow_limit_exceeded:
      return "BorrowLimitExceeded";
  }
  return "?";
}

struct Model {
  std::shared_ptr<const Config> cfg;
  std::int64_t wall_ns = 0;
  std::int64_t steady_ns = 0;             // ManualClock's steady reading starts at 0
  std::optional<TickSeq> last;            // the current instance's (tick, seq), issued or resumed
  std::optional<std::int64_t> prev_tick;  // the tick of the current instance's previous ID
  std::optional<std::int64_t> high_tick;  // the highest tick any instance issued from
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
  std::size_t duplicates = 0;  // IDs equal to one issued before
  std::size_t backward = 0;    // IDs from a tick below their predecessor's in the instance
};

Outcome simulate(const Model& m, int count) {
  const Config& c = *m.cfg;
  Outcome o;
  o.wall_ns = m.wall_ns;
  o.steady_ns = m.steady_ns;
  o.last = m.last;
  o.prev_tick = m.prev_tick;
  o.issued.reserve(static_cast<std::size_t>(count));

  // A spinning generator calls relax(), on which the ManualClock lets its step of time pass.
  const auto relax = [&] {
    o.wall_ns += c.relax_step_ns;
    o.steady_ns += c.relax_step_ns;
  };
  const auto issue = [&](TickSeq s) {
    if (o.prev_tick && s.tick < *o.prev_tick) ++o.backward;
    // Lookups against the history before this batch are enough: within one batch the clock
    // only moves forward, so after at most one reset the batch's (tick, seq) only increase.
    if (c.tracks_duplicates()) {
      const auto top = top_seq_of(m.top_seq, s.tick);
      if (top && s.seq <= *top) ++o.duplicates;
    }
    o.issued.push_back(s);
    o.last = s;
    o.prev_tick = s.tick;
  };
  const auto refuse = [&](Refusal r, std::int64_t ms) {
    o.refusal = r;
    o.refusal_ms = ms;
  };

  for (int i = 0; i < count && o.refusal == Refusal::none; ++i) {
    std::optional<std::int64_t> wait_started_ns;
    bool issued = false;
    while (!issued && o.refusal == Refusal::none) {
      const std::int64_t now = c.tick_of(o.wall_ns);
      if (!o.last || now > o.last->tick) {
        issue({now, 0});
        issued = true;
        continue;
      }
      const TickSeq last = *o.last;
      // borrow: the (tick, seq) after the last, a tick ahead once the sequence is spent, as
      // long as that is no further ahead of the clock than the bound; at the bound it waits
      // for the clock if the last tick is within the bound, and fails only if it is not.
      const auto borrow = [&] {
        const TickSeq next =
            last.seq < c.max_seq ? TickSeq{last.tick, last.seq + 1} : TickSeq{last.tick + 1, 0};
        const std::int64_t ahead_ms = (next.tick - now) * c.unit_ms;
        if (ahead_ms > c.policy.bound_ms && (last.tick - now) * c.unit_ms <= c.policy.bound_ms) {
          relax();  // spent sequence at the bound: wait for the clock rather than fail
        } else if (ahead_ms > c.policy.bound_ms) {
          refuse(Refusal::borrow_limit_exceeded, ahead_ms);
        } else {
          issue(next);
          issued = true;
        }
      };
      if (now == last.tick) {
        if (last.seq < c.max_seq) {
          issue({now, last.seq + 1});
          issued = true;
        } else if (c.policy.kind == PolicyKind::borrow) {
          borrow();
        } else {
          relax();  // the tick's sequence is spent: spin into the next tick
        }
        continue;
      }
      const std::int64_t behind_ms = (last.tick - now) * c.unit_ms;
      switch (c.policy.kind) {
        case PolicyKind::refuse:
          refuse(Refusal::clock_moved_backwards, behind_ms);
          break;
        case PolicyKind::wait:
          relax();
          break;
        case PolicyKind::bounded_wait:
          if (behind_ms > c.policy.bound_ms) {
            refuse(Refusal::wait_bound_exceeded, behind_ms);
            break;
          }
          if (!wait_started_ns) wait_started_ns = o.steady_ns;
          if (o.steady_ns - *wait_started_ns > c.policy.bound_ms * 1'000'000) {
            refuse(Refusal::wait_bound_exceeded, behind_ms);
            break;
          }
          relax();
          break;
        case PolicyKind::borrow:
          borrow();
          break;
        case PolicyKind::unsafe:
          issue({now, 0});
          issued = true;
          break;
      }
    }
  }
  return o;
}

void commit(Model& m, const Outcome& o) {
  m.wall_ns = o.wall_ns;
  m.steady_ns = o.steady_ns;
  m.last = o.last;
  m.prev_tick = o.prev_tick;
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

struct Sut {
  explicit Sut(std::shared_ptr<const Config> c)
      : cfg(std::move(c)),
        clock(std::make_shared<ManualClock>(cfg->start_wall_ns, cfg->relax_step_ns)) {
    restart(false);
  }

  void restart(bool from_mark) {
    GeneratorOptions opts;
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
    gen = make_generator(cfg->variant, opts);
    instance_prev_id.reset();
    instance_prev_tick.reset();
  }

  std::shared_ptr<const Config> cfg;
  std::shared_ptr<ManualClock> clock;
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
  explicit Restart(const Model& m) : from_mark(m.cfg->restart == RestartMode::from_mark) {}

  void checkPreconditions(const Model& m) const override {
    if (!from_mark) RC_PRE(!m.high_tick || m.cfg->tick_of(m.wall_ns) > *m.high_tick);
  }
  void apply(Model& m) const override {
    m.last.reset();
    if (from_mark && m.high_tick) m.last = TickSeq{*m.high_tick, m.cfg->max_seq};
    m.prev_tick.reset();
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

void Generate::run(const Model& s0, Sut& sut) const {
  const Config& c = *sut.cfg;
  const Policy& policy = c.policy;
  const Outcome want = simulate(s0, count);

  std::vector<Id> got;
  got.reserve(static_cast<std::size_t>(count));
  Refusal refusal = Refusal::none;
  std::int64_t refusal_ms = 0;
  std::size_t misordered = 0;
  std::size_t backward = 0;
  for (int call = 0; call < count && refusal == Refusal::none; ++call) {
    const std::int64_t before = c.tick_of(sut.clock->wall_ns());
    const bool behind = sut.last_tick && before < *sut.last_tick;
    const std::int64_t behind_ms = behind ? (*sut.last_tick - before) * c.unit_ms : 0;
    Id id;
    try {
      id = sut.gen->next();
    } catch (const ClockMovedBackwards& e) {
      refusal = Refusal::clock_moved_backwards;
      refusal_ms = e.behind_ms();
    } catch (const WaitBoundExceeded& e) {
      refusal = Refusal::wait_bound_exceeded;
      refusal_ms = e.behind_ms();
    } catch (const BorrowLimitExceeded&) {
      refusal = Refusal::borrow_limit_exceeded;
    }
    if (behind && refusal == Refusal::none) ++sut.waits;

    // What each policy promises about refusing, checked against the clock and the generator's
    // own last tick alone, before the model is asked.
    switch (policy.kind) {
      case PolicyKind::refuse:
        if ((refusal == Refusal::clock_moved_backwards) != behind) {
          fail(sut, call,
               fmt::format("refuse threw {} with the clock {} ms behind the last tick",
                           name_of(refusal), behind_ms));
        }
        if (behind && refusal_ms != behind_ms) {
          fail(sut, call,
               fmt::format("ClockMovedBackwards says {} ms, the clock is {} ms behind", refusal_ms,
                           behind_ms));
        }
        break;
      case PolicyKind::bounded_wait: {
        const bool too_far = behind && behind_ms > policy.bound_ms;
        if ((refusal == Refusal::wait_bound_exceeded) != too_far) {
          fail(sut, call,
               fmt::format("bounded-wait ({} ms) threw {} with the clock {} ms behind",
                           policy.bound_ms, name_of(refusal), behind_ms));
        }
        if (too_far && refusal_ms != behind_ms) {
          fail(sut, call,
               fmt::format("WaitBoundExceeded says {} ms, the clock is {} ms behind", refusal_ms,
                           behind_ms));
        }
        break;
      }
      case PolicyKind::wait:
      case PolicyKind::unsafe:
        if (refusal != Refusal::none) fail(sut, call, fmt::format("threw {}", name_of(refusal)));
        break;
      case PolicyKind::borrow:
        if (refusal != Refusal::none && refusal != Refusal::borrow_limit_exceeded) {
          fail(sut, call, fmt::format("borrow threw {}", name_of(refusal)));
        }
        break;
    }
    if (refusal != Refusal::none) {
      ++sut.refusals;
      break;
    }

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
    if (sut.instance_prev_tick && tick < *sut.instance_prev_tick) ++backward;
    if (sut.instance_prev_id && id <= *sut.instance_prev_id) ++misordered;
    // Every policy but unsafe keeps order across the whole history, restarts included: the
    // mark makes a new instance start after every issued tick, and so does a clock past them.
    if (policy.promises_uniqueness() && sut.history_prev_id) {
      const bool in_order =
          c.ordered_within_tick() ? id > *sut.history_prev_id : tick >= *sut.history_prev_tick;
      if (!in_order) {
        fail(sut, call,
             fmt::format("{} after {}: out of order under {}", to_text(id, c.width()),
                         to_text(*sut.history_prev_id, c.width()), policy.name()));
      }
    }
    got.push_back(id);
    sut.instance_prev_id = id;
    sut.instance_prev_tick = tick;
    sut.history_prev_id = id;
    sut.history_prev_tick = tick;
    sut.last_tick = tick;
    sut.high_tick = std::max(sut.high_tick.value_or(tick), tick);
  }
  sut.backward += backward;

  // Duplicates, by the same finder the stress tests and duplicates_test.cpp use.
  const std::size_t duplicates = sut.finder.add(got);
  if (policy.promises_uniqueness()) {
    if (duplicates != 0) {
      RC_FAIL(fmt::format("{} issued {} duplicates, e.g. {}", policy.name(), duplicates,
                          sut.finder.describe(c.width())));
    }
  }

  // The generator against the model.
  RC_ASSERT(name_of(refusal) == name_of(want.refusal));
  if (refusal != Refusal::borrow_limit_exceeded) RC_ASSERT(refusal_ms == want.refusal_ms);
  RC_ASSERT(got.size() == want.issued.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::int64_t tick = c.tick_of_id(got[i]);
    if (tick != want.issued[i].tick) {
      RC_FAIL(fmt::format("ID {} of {} is from tick {}; the model says tick {}", i, got.size(),
                          tick, want.issued[i].tick));
    }
    if (c.family == Family::snowflake) {
      const LayoutFields f = c.layout->decode(got[i].lo);
      if (f.seq != want.issued[i].seq || f.node != c.node) {
        RC_FAIL(fmt::format("ID {} of {} has seq {} node {}; the model says seq {} node {}", i,
                            got.size(), f.seq, f.node, want.issued[i].seq, c.node));
      }
    } else if (got[i].to_uuid().version() != 7) {
      RC_FAIL(fmt::format("{} is not a version 7 UUID", to_text(got[i], c.width())));
    }
  }
  RC_ASSERT(sut.clock->wall_ns() == want.wall_ns);
  RC_ASSERT(sut.clock->steady_ns() == want.steady_ns);
  // Unsafe is caught: every duplicate the model predicts is found, and every ID issued from
  // below its predecessor's tick is an order violation the check sees.
  RC_ASSERT(duplicates == want.duplicates);
  RC_ASSERT(backward == want.backward);
  if (c.ordered_within_tick()) RC_ASSERT(misordered == backward);
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
  if (c.family == Family::snowflake) {
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

void check_model(std::string_view variant, PolicyKind policy, RestartMode restart) {
  const auto cfg = std::make_shared<const Config>(draw_config(variant, policy, restart));
  RC_LOG() << *cfg << "\n";
  Model initial;
  initial.cfg = cfg;
  initial.wall_ns = cfg->start_wall_ns;
  Sut sut(cfg);
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
