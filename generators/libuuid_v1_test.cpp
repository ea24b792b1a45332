// libuuid_v1_test — the libuuid-v1 variant: real UUIDv1 at the real time, and libuuid's path.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "generators/registry.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

std::int64_t real_unix_ms() { return wall_clock()->wall_ns() / 1'000'000; }

TEST(LibuuidV1, IssuesVersionOneAtTheRealTime) {
  auto gen = make_generator("libuuid-v1", GeneratorOptions{});
  const std::int64_t before = real_unix_ms();
  const Id id = gen->next();
  const std::int64_t after = real_unix_ms();
  const Uuid u = id.to_uuid();
  EXPECT_EQ(u.version(), 1);
  EXPECT_EQ(u.bytes[8] >> 6, 0b10);
  const auto ms = unix_ms_of(IdTime::uuid, id, Layout::parse("twitter"));
  ASSERT_TRUE(ms.has_value());
  EXPECT_GE(*ms, before);
  EXPECT_LE(*ms, after);
}

TEST(LibuuidV1, TheDescriptionSaysItKeepsItsOwnClock) {
  const Variant* v = find_variant("libuuid-v1");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->own_clock);
  EXPECT_EQ(v->id_time, IdTime::uuid);
  EXPECT_EQ(v->ordering, Ordering::none);  // v1's low-first timestamp does not sort
  EXPECT_FALSE(v->defaults.chaos);         // it takes no policy: its cells are run by name
  EXPECT_NE(make_generator("libuuid-v1", GeneratorOptions{})->format().find(libuuid_path()),
            std::string::npos);
}

// The in-process fallback: each thread keeps its own clock sequence, constant while its clock
// runs forward, and every thread writes the same node (the host's). So threads are told apart
// by their random clock sequences alone.
TEST(LibuuidV1, InProcessEachThreadKeepsOneClockSequenceAndTheHostsNode) {
  if (libuuid_path().find("in-process") == std::string::npos) {
    GTEST_SKIP() << "libuuid takes another path here: " << libuuid_path();
  }
  auto gen = make_generator("libuuid-v1", GeneratorOptions{});
  std::set<std::uint64_t> nodes;
  for (int t = 0; t < 3; ++t) {
    std::thread([&] {
      std::set<std::uint64_t> seqs;
      for (int i = 0; i < 1000; ++i) {
        const auto f = uuid_format::dce_fields(gen->next().to_uuid());
        ASSERT_TRUE(f.has_value());
        seqs.insert(f->clock_seq);
        nodes.insert(f->node);
      }
      EXPECT_EQ(seqs.size(), 1u);
    }).join();
  }
  EXPECT_EQ(nodes.size(), 1u);
}

}  // namespace
}  // namespace idbench
