// retry_rule_test.cpp — the retry rule (sequencer.hpp, advance_from) as a property: a clock
// reading that went stale before the state was loaded never causes a refusal, and a real
// regression is still refused. Run against `cas`, `mutex` and `thread-local` as built by the
// registry, and against a planted generator that trusts its one reading, which must be caught.
//
// How a reading goes stale, deterministically: the test's clock runs an *interloper* inside
// the generator's first clock read. The interloper lets time pass and issues IDs from the same
// generator, as another thread would between this call's clock read and its load of the state
// (cas) or its turn at the lock (mutex). The call then holds a reading older than the state.
//
// The model: `last` is the highest tick issued. A call under `refuse` throws exactly when the
// clock, as it stands once the interlopers are done, is behind `last`; otherwise it issues an
// ID above every earlier one, from a tick between `last` and that clock.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generators/errors.hpp"
#include "generators/generator.hpp"
#include "generators/sequencer.hpp"
#include "generators/snowflake.hpp"
#include "property/fixed_run.hpp"

namespace idbench::property {
namespace {

// A manual clock that runs `interloper` inside the next read once `arm()`ed; the read returns
// the time from before the interloper ran.
class InterlopingClock final : public Clock {
 public:
  std::int64_t wall_ns() const override {
    const std::int64_t reading = wall_;
    if (interloper_) {
      const std::function<void()> run = std::move(interloper_);
      interloper_ = nullptr;  // the interloper's own reads are plain ones
      run();
    }
    return reading;
  }
  std::int64_t steady_ns() const override { return wall_; }
  void relax() override { wall_ += 100'000; }

  // The time now, without running the interloper.
  std::int64_t now_ns() const { return wall_; }
  void arm(std::function<void()> interloper) { interloper_ = std::move(interloper); }
  void advance_us(std::int64_t us) { wall_ += us * 1'000; }
  void step_back_ms(std::int64_t ms) { wall_ -= ms * 1'000'000; }

 private:
  // One thread drives it. Mutable: reading the clock is what runs the interloper.
  mutable std::int64_t wall_ = 1'700'000'000'000'000'000;
  mutable std::function<void()> interloper_;
};

// What one step of a history does before its call: let time pass, step the clock back (a
// real regression), and how many interloping IDs to issue inside the call's first read, with
// how much time before each.
struct Step {
  int advance_us = 0;
  int step_back_ms = 0;
  int interlopers = 0;
  int interloper_gap_us = 0;
};

rc::Gen<Step> step_gen() {
  return rc::gen::build<Step>(
      rc::gen::set(&Step::advance_us, rc::gen::inRange(0, 2'500)),
      rc::gen::set(&Step::step_back_ms, rc::gen::weightedOneOf<int>(
                                            {{9, rc::gen::just(0)}, {1, rc::gen::inRange(1, 4)}})),
      rc::gen::set(&Step::interlopers, rc::gen::inRange(0, 4)),
      rc::gen::set(&Step::interloper_gap_us, rc::gen::inRange(0, 1'500)));
}

using Factory = std::function<std::unique_ptr<Generator>(const GeneratorOptions&)>;

// Runs one ID through the model: throws iff the clock is behind `last`, else an ID above
// `prev` from a tick in [last, clock].
void issue_one(Generator& gen, const InterlopingClock& clock, const SequenceSpace& space,
               const Layout& layout, std::int64_t& last, std::optional<std::uint64_t>& prev,
               std::string_view who) {
  std::optional<std::uint64_t> id;
  try {
    id = gen.next().lo;
  } catch (const ClockMovedBackwards&) {
  }
  const std::int64_t now = space.tick_of_wall_ns(clock.now_ns());
  if (now < last) {
    RC_ASSERT_FALSE(id.has_value());
    return;
  }
  if (!id) {
    RC_FAIL(std::string(who) + " refused with the clock at tick " + std::to_string(now) +
            ", not behind the last tick issued, " + std::to_string(last));
  }
  const std::int64_t tick = layout.decode(*id).tick;
  RC_ASSERT(tick >= last);
  RC_ASSERT(tick <= now);
  if (prev) RC_ASSERT(*id > *prev);
  prev = id;
  last = tick;
}

void check_retry_rule(const Factory& make) {
  const auto clock = std::make_shared<InterlopingClock>();
  GeneratorOptions opts;
  opts.layout = Layout::parse("twitter");
  opts.policy = Policy::of(PolicyKind::refuse);
  opts.node = 1;
  opts.clock = clock;
  const std::unique_ptr<Generator> gen = make(opts);
  const SequenceSpace space = space_of(opts.layout);
  std::int64_t last = TickState::kNoTick;
  std::optional<std::uint64_t> prev;

  const std::vector<Step> steps = *rc::gen::container<std::vector<Step>>(step_gen());
  for (const Step& s : steps) {
    clock->advance_us(s.advance_us);
    clock->step_back_ms(s.step_back_ms);
    if (s.interlopers > 0) {
      clock->arm([&, s] {
        for (int i = 0; i < s.interlopers; ++i) {
          clock->advance_us(s.interloper_gap_us);
          issue_one(*gen, *clock, space, opts.layout, last, prev, "an interloper");
        }
      });
    }
    issue_one(*gen, *clock, space, opts.layout, last, prev, "the call with a stale reading");
  }
}

// The plant: cas's design trusting its one reading, as a naive one-read-per-ID rule would: a
// state ahead of the reading is taken for a regression, stale or not.
class TrustsItsOneReading {
 public:
  using id_type = std::uint64_t;
  explicit TrustsItsOneReading(const GeneratorOptions& opts) : cfg_(opts), state_(cfg_.initial) {}
  std::uint64_t next() {
    const std::int64_t now = read_ticks(*cfg_.clock, cfg_.space);
    for (;;) {
      const Decision d = next_state(state_, now, std::uint64_t{0}, cfg_.policy, cfg_.space);
      if (d.action == Action::refuse) throw ClockMovedBackwards(d.behind_ticks);
      if (d.action == Action::issue) {
        state_ = d.next;
        return cfg_.encode(d.next, cfg_.node);
      }
      cfg_.clock->relax();  // spin: the sequence is used up (a fresh reading would be needed)
    }
  }
  std::string format() const { return cfg_.format(); }

 private:
  const SnowflakeConfig cfg_;
  TickState state_;
};

Factory registry(std::string_view variant) {
  return [variant](const GeneratorOptions& opts) { return make_generator(variant, opts); };
}

// A fixed run (fixed_run.hpp): the same every time.
rc::detail::TestResult run_property(const Factory& make) {
  return run_fixed([&make] { check_retry_rule(make); }, "retry rule against stale readings", 200);
}

TEST(RetryRule, CasNeverRefusesAStaleReadingAndRefusesARegression) {
  const rc::detail::TestResult result = run_property(registry("cas"));
  EXPECT_TRUE(result.is<rc::detail::SuccessResult>()) << result;
}

TEST(RetryRule, MutexNeverRefusesAStaleReadingAndRefusesARegression) {
  const rc::detail::TestResult result = run_property(registry("mutex"));
  EXPECT_TRUE(result.is<rc::detail::SuccessResult>()) << result;
}

TEST(RetryRule, ThreadLocalNeverRefusesAStaleReadingAndRefusesARegression) {
  const rc::detail::TestResult result = run_property(registry("thread-local"));
  EXPECT_TRUE(result.is<rc::detail::SuccessResult>()) << result;
}

TEST(RetryRule, AGeneratorThatTrustsAStaleReading_IsCaught) {
  const rc::detail::TestResult result = run_property([](const GeneratorOptions& opts) {
    return std::make_unique<ErasedGenerator<TrustsItsOneReading>>(opts);
  });
  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(failure)) << "the planted defect was not caught: " << result;
  std::cout << "caught after " << failure.numSuccess << " passing cases: " << failure.description
            << "\n";
  EXPECT_NE(failure.description.find("refused with the clock at tick"), std::string::npos)
      << failure.description;
}

}  // namespace
}  // namespace idbench::property
