// The bench-only floors (reference.hpp): what each one reads and returns, also from two threads
// at once (a TSan run checks the shared commits of the mutex and CAS floors).
#include "generators/reference.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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

}  // namespace
}  // namespace idbench
