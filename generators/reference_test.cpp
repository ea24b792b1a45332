// The bench-only floors (reference.hpp): what each one reads and returns, also from two threads
// at once (a TSan run checks the shared commits of the mutex and CAS floors).
#include "generators/reference.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "generators/errors.hpp"

namespace idbench {
namespace {

constexpr std::int64_t kWallNs = 1'790'000'000'123'456'789;

struct Floors {
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(kWallNs);
  GeneratorOptions opts = [this] {
    GeneratorOptions o;
    o.clock = clock;
    return o;
  }();
};

// A clock that moves `step` ns forward at every reading (0: stands still).
class StepClock final : public Clock {
 public:
  explicit StepClock(std::int64_t start_ns) : now_(start_ns) {}
  std::int64_t wall_ns() const override { return now_.fetch_add(step_) + step_; }
  std::int64_t steady_ns() const override { return wall_ns(); }
  void set_wall_ns(std::int64_t ns) { now_ = ns; }
  void set_step_ns(std::int64_t ns) { step_ = ns; }

 private:
  mutable std::atomic<std::int64_t> now_;
  std::atomic<std::int64_t> step_{100};
};

// Each floor that reads the clock returns the reading it took: one read per ID, nothing else
// in the ID.
TEST(ReferenceFloors, ClockReadingFloorsReturnTheReading) {
  for (auto make :
       {&make_clock_once_floor, &make_clock_once_lock_floor, &make_clock_once_cas_floor}) {
    Floors f;
    const auto gen = make(f.opts);
    EXPECT_EQ(gen->next(), Id::from_u64(kWallNs)) << gen->format();
    f.clock->advance_ns(7);
    EXPECT_EQ(gen->next(), Id::from_u64(kWallNs + 7)) << gen->format();
    f.clock->set_wall_ns(kWallNs - 1'000);  // a floor keeps no order: it returns what it read
    EXPECT_EQ(gen->next(), Id::from_u64(kWallNs - 1'000)) << gen->format();
  }
}

TEST(ReferenceFloors, NoClockFloorCountsPerThread) {
  Floors f;
  const auto gen = make_no_clock_floor(f.opts);
  const Id a = gen->next();
  const Id b = gen->next();
  EXPECT_EQ(b.lo, a.lo + 1);
  f.clock->advance_ns(1'000'000);
  EXPECT_EQ(gen->next().lo, b.lo + 1);  // reads no clock
}

TEST(ReferenceFloors, SharedCommitFloorsFromTwoThreads) {
  for (auto make : {&make_clock_once_lock_floor, &make_clock_once_cas_floor}) {
    Floors f;
    const auto gen = make(f.opts);
    std::vector<std::vector<Id>> got(2);
    std::vector<std::thread> threads;
    for (auto& ids : got) {
      threads.emplace_back([&gen, &ids] {
        for (int i = 0; i < 20'000; ++i) ids.push_back(gen->next());
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& ids : got) {
      ASSERT_EQ(ids.size(), 20'000u);
      for (const Id& id : ids) ASSERT_EQ(id, Id::from_u64(kWallNs)) << gen->format();
    }
  }
}

// The minimal designs are correct Snowflakes and UUIDv7s for one layout and `refuse`: IDs
// increase within a thread, a spent sequence moves to the next ms, a clock behind is refused.
TEST(MinimalDesigns, IncreaseSpinAndRefuse) {
  for (auto make :
       {&make_minimal_cas, &make_minimal_mutex, &make_minimal_per_thread, &make_minimal_uuidv7}) {
    // The per-thread design keeps its state per thread: each design runs on a fresh thread.
    std::thread([make] {
      const auto clock = std::make_shared<StepClock>(kWallNs);
      GeneratorOptions opts;
      opts.clock = clock;
      const auto gen = make(opts);
      Id last = gen->next();
      for (int i = 0; i < 10'000; ++i) {  // 4,096 per ms for Snowflake: spins into later ms
        const Id id = gen->next();
        ASSERT_LT(last, id) << gen->format() << " at " << i;
        last = id;
      }
      clock->set_step_ns(0);
      clock->set_wall_ns(kWallNs - 5'000'000);
      EXPECT_THROW(gen->next(), ClockMovedBackwards) << gen->format();
    }).join();
  }
}

TEST(MinimalDesigns, SharedDesignsFromTwoThreadsIssueUniqueIds) {
  for (auto make : {&make_minimal_cas, &make_minimal_mutex, &make_minimal_uuidv7}) {
    GeneratorOptions opts;
    opts.clock = std::make_shared<StepClock>(kWallNs);
    const auto gen = make(opts);
    std::vector<std::vector<Id>> got(2);
    std::vector<std::thread> threads;
    for (auto& ids : got) {
      threads.emplace_back([&gen, &ids] {
        for (int i = 0; i < 20'000; ++i) ids.push_back(gen->next());
      });
    }
    for (auto& t : threads) t.join();
    std::set<Id> all(got[0].begin(), got[0].end());
    all.insert(got[1].begin(), got[1].end());
    EXPECT_EQ(all.size(), 40'000u) << gen->format();
  }
}

}  // namespace
}  // namespace idbench
