// Every registered variant through the erased interface: the contracts the harness relies on.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <latch>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "generators/errors.hpp"
#include "generators/random.hpp"
#include "generators/registry.hpp"

namespace idbench {
namespace {

constexpr std::int64_t kStartMs = 1'790'000'000'000;

GeneratorOptions manual_options(const std::shared_ptr<ManualClock>& clock,
                                PolicyKind policy = PolicyKind::refuse) {
  GeneratorOptions o;
  o.layout = Layout::parse("twitter", kStartMs);
  o.policy = Policy::of(policy);
  o.clock = clock;
  return o;
}

TEST(Registry, NamesEveryVariantOnce) {
  std::set<std::string_view> names;
  for (const auto& v : variants()) EXPECT_TRUE(names.insert(v.name).second) << v.name;
  EXPECT_EQ(names.size(), 12u);
  EXPECT_EQ(find_variant("nope"), nullptr);
  EXPECT_THROW(make_generator("nope", GeneratorOptions{}), Error);
}

TEST(Registry, EveryVariantIssuesUniqueAscendingIdsFromOneThread) {
  for (const auto& v : variants()) {
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto gen = make_generator(v.name, manual_options(clock));
    EXPECT_EQ(gen->name(), v.name);
    std::vector<Id> ids;
    for (int i = 0; i < 20'000; ++i) {
      ids.push_back(gen->next());
      if (i % 1000 == 0) clock->advance_ms(1);
    }
    // Each stream strictly increases where the description promises it.
    const bool ordered =
        v.ordering == Ordering::k_sorted || v.ordering == Ordering::monotone_per_stream;
    if (ordered) {
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << v.name;
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << v.name;
  }
}

// The description says how an ID carries its time; unix_ms_of reads it back as issued.
TEST(Registry, UnixMsOfReadsTheTimeEveryVariantIssuesAt) {
  for (const auto& v : variants()) {
    if (v.own_clock) continue;  // reads the real clock: libuuid_v1_test
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    const GeneratorOptions opts = manual_options(clock);
    auto gen = make_generator(v.name, opts);
    gen->next();
    clock->advance_ms(7);
    const std::optional<std::int64_t> ms = unix_ms_of(v.id_time, gen->next(), opts.layout);
    if (v.id_time == IdTime::none) {
      EXPECT_FALSE(ms.has_value()) << v.name;
    } else {
      EXPECT_EQ(ms, kStartMs + 7) << v.name;
    }
    EXPECT_EQ(v.id_time != IdTime::none, v.time_based) << v.name;
    EXPECT_EQ(v.id_time == IdTime::layout, v.uses_layout) << v.name;
    EXPECT_EQ(v.width == IdWidth::bits128, v.id_time == IdTime::uuidv7 || v.family == "uuid")
        << v.name;
  }
}

TEST(Registry, UnixMsOfRefusesWhatCarriesNoSuchTime) {
  const Layout twitter = Layout::parse("twitter", kStartMs);
  // Bits above 64 are no layout ID; a UUIDv4 has no Unix ms.
  EXPECT_FALSE(unix_ms_of(IdTime::layout, Id{1, 0}, twitter).has_value());
  Uuid v4{};
  v4.bytes[6] = 0x40;
  EXPECT_FALSE(unix_ms_of(IdTime::uuidv7, Id::from_uuid(v4), twitter).has_value());
  // The widest layout whose ticks all fit int64 ms: its top ID reads as the last such ms.
  const Layout wide = Layout::parse("spare=0,ts=62,node=1,seq=1", kStartMs);
  EXPECT_EQ(unix_ms_of(IdTime::layout, Id::from_u64(~std::uint64_t{0}), wide),
            (std::int64_t{1} << 62) - 1);
  EXPECT_FALSE(twitter.checked_unix_ms_of_tick(std::numeric_limits<std::int64_t>::max()));
}

// RFC 9562 Appendix A: the v1, v6 and v7 examples all encode 2022-02-22T19:22:22Z.
TEST(Registry, UuidTimeReadsVersionsOneSixAndSeven) {
  const Layout twitter = Layout::parse("twitter", kStartMs);
  constexpr std::int64_t kExampleMs = 1645557742000;
  for (const char* text :
       {"C232AB00-9414-11EC-B3C8-9F6BDECED846", "1EC9414C-232A-6B00-B3C8-9F6BDECED846",
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"}) {
    const auto u = Uuid::parse(text);
    ASSERT_TRUE(u.has_value()) << text;
    EXPECT_EQ(unix_ms_of(IdTime::uuid, Id::from_uuid(*u), twitter), kExampleMs) << text;
  }
  const auto v4 = Uuid::parse("919108F7-52D1-4320-9BAC-F847DB4148A8");
  ASSERT_TRUE(v4.has_value());
  EXPECT_FALSE(unix_ms_of(IdTime::uuid, Id::from_uuid(*v4), twitter).has_value());
  // The v1 time field's zero is 1582-10-15: before 1970, floored to the ms.
  EXPECT_EQ(unix_ms_of(IdTime::uuid, Id{0x1000, 0}, twitter), -12219292800000);
}

// A ULID's top 48 bits and a KSUID's top 32 (seconds from 2014-05-13T16:53:20Z), whatever
// sits where a UUID's version would be.
TEST(Registry, UlidKsuidAndXidTimesReadTheirOwnFields) {
  const Layout twitter = Layout::parse("twitter", kStartMs);
  // The ULID spec's example 01ARZ3NDEK... carries 1469918176385 ms.
  EXPECT_EQ(unix_ms_of(IdTime::ulid, Id{0x01563DF36481D676ull, 0x4C61EFB99302BD5Bull}, twitter),
            1469918176385);
  // KSUID 0ujtsYcgvSTl8PAuAdqWYSMnLOv: timestamp 107608047 s after the KSUID epoch.
  EXPECT_EQ(unix_ms_of(IdTime::ksuid, Id{0x0669F7EFB5A1CD34ull, 0}, twitter),
            (1'400'000'000 + 107'608'047) * std::int64_t{1000});
  // xid 9m4e2mr0ui3e8a215n4g (rs/xid's README) is 4d88e15b 60f486 e428 412dc9: Unix second
  // 0x4d88e15b; as 128 bits its 12 bytes come first.
  EXPECT_EQ(unix_ms_of(IdTime::xid, Id{0x4d88e15b60f486e4ull, 0x28412dc900000000ull}, twitter),
            std::int64_t{0x4d88e15b} * 1000);
}

TEST(Registry, EnumNamesRoundTrip) {
  for (IdTime how : kIdTimes) {
    EXPECT_EQ(id_time_named(name_of(how)), how);
  }
  EXPECT_FALSE(id_time_named("sometimes").has_value());
  EXPECT_EQ(name_of(Ordering::k_sorted_by_tick), "k_sorted_by_tick");
  EXPECT_EQ(name_of(NodeIds::per_thread), "per_thread");
}

// Today's default matrices, now read from the descriptions: chaos quick {cas, uuidv7}, full
// {mutex, cas, thread-local, uuidv7}; locality every variant.
TEST(Registry, DefaultsReproduceTheMatrices) {
  std::vector<std::string_view> quick, full;
  for (const auto& v : variants()) {
    if (v.defaults.chaos_quick) quick.push_back(v.name);
    if (v.defaults.chaos) full.push_back(v.name);
    EXPECT_TRUE(v.defaults.locality) << v.name;
    EXPECT_TRUE(!v.defaults.chaos_quick || v.defaults.chaos) << v.name;
    EXPECT_TRUE(!v.defaults.chaos || v.time_based) << v.name;
  }
  EXPECT_EQ(quick, (std::vector<std::string_view>{"cas", "uuidv7"}));
  EXPECT_EQ(full,
            (std::vector<std::string_view>{"mutex", "cas", "thread-local", "uuidv7", "uuidv8"}));
}

TEST(Snowflake, SequenceOverflowWaitsForTheNextMillisecond) {
  for (std::string_view name : {"mutex", "cas", "thread-local"}) {
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto opts = manual_options(clock);
    auto gen = make_generator(name, opts);
    Id last;
    for (int i = 0; i < 4097; ++i) last = gen->next();
    const LayoutFields f = opts.layout.decode(last.lo);
    EXPECT_EQ(opts.layout.unix_ms_of_tick(f.tick), kStartMs + 1) << name;
    EXPECT_EQ(f.seq, 0u) << name;
  }
}

TEST(Snowflake, EveryTimeBasedVariantRefusesABackwardStep) {
  for (const auto& v : variants()) {
    if (!v.time_based || v.own_clock) continue;
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto gen = make_generator(v.name, manual_options(clock));
    gen->next();
    clock->step_wall_ms(-200);
    try {
      gen->next();
      FAIL() << v.name;
    } catch (const ClockMovedBackwards& e) {
      EXPECT_EQ(e.behind_ms(), 200) << v.name;
    }
  }
}

TEST(Snowflake, UnsafeReissuesIdsAfterABackwardStep) {
  for (std::string_view name : {"mutex", "cas", "thread-local"}) {
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto gen = make_generator(name, manual_options(clock, PolicyKind::unsafe));
    const Id first = gen->next();
    clock->step_wall_ms(+5);
    gen->next();
    clock->step_wall_ms(-5);
    EXPECT_EQ(gen->next(), first) << name;
  }
}

TEST(Snowflake, EpochExhaustionRefusesNamingTheLastDate) {
  auto clock = std::make_shared<ManualClock>(4'000'000'000'000LL * 1'000'000);  // year 2096
  auto gen = make_generator("cas", manual_options(clock));
  try {
    gen->next();
    FAIL();
  } catch (const EpochExhausted& e) {
    EXPECT_NE(std::string(e.what()).find("2080-07-10"), std::string::npos) << e.what();
  }
}

TEST(Snowflake, ResumingFromAHighWaterMarkRefusesUntilTheClockPassesIt) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto opts = manual_options(clock);
  opts.resume_after_unix_ms = kStartMs + 50;  // the last run issued up to here
  auto gen = make_generator("mutex", opts);
  EXPECT_THROW(gen->next(), ClockMovedBackwards);
  clock->advance_ms(51);
  EXPECT_NO_THROW(gen->next());
}

// Every time-based variant treats the same mark the same way: behind the clock it is passed at
// once, ahead of it the policy applies until the clock passes it.
TEST(HighWaterMark, EveryVariantResumesAlikeFromTheSameMark) {
  for (const auto& v : variants()) {
    if (!v.time_based || v.own_clock) continue;
    for (const std::int64_t mark : {kStartMs - 86'400'000, kStartMs - 1}) {
      auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
      auto opts = manual_options(clock);
      opts.resume_after_unix_ms = mark;
      EXPECT_EQ(unix_ms_of(v.id_time, make_generator(v.name, opts)->next(), opts.layout), kStartMs)
          << v.name << " mark " << mark;
    }
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto opts = manual_options(clock);
    opts.resume_after_unix_ms = kStartMs + 50;
    auto gen = make_generator(v.name, opts);
    try {
      gen->next();
      ADD_FAILURE() << v.name << " issued before the clock passed the mark";
    } catch (const ClockMovedBackwards& e) {
      EXPECT_EQ(e.behind_ms(), 50) << v.name;
    }
  }
}

// A mark the layout cannot have issued at (before its epoch, 0, negative, past its lifetime or
// the clock's range) is refused when the generator is built, as bad input: it would otherwise
// leave the generator refusing for ever (cas read a tick before the epoch as ~4.5e15 ms ahead).
TEST(HighWaterMark, AMarkNoIdCouldCarryIsRefusedAtConstruction) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (const auto& v : variants()) {
    if (!v.time_based || v.own_clock) continue;
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
    auto opts = manual_options(clock);
    std::vector<std::int64_t> marks = {0, -1, kMin, kMax, 253'402'300'800'000'000};
    if (v.uses_layout) {
      marks.push_back(opts.layout.epoch_unix_ms() - 1);
      marks.push_back(opts.layout.last_unix_ms() + 1);
    }
    for (const std::int64_t mark : marks) {
      opts.resume_after_unix_ms = mark;
      try {
        make_generator(v.name, opts);
        ADD_FAILURE() << v.name << " accepted mark " << mark;
      } catch (const HighWaterMarkError& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(mark)), std::string::npos) << e.what();
      }
    }
  }
}

TEST(ThreadLocal, EachThreadIssuesAsItsOwnNode) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto opts = manual_options(clock);
  opts.node = 10;
  auto gen = make_generator("thread-local", opts);
  std::set<std::uint64_t> nodes;
  for (int t = 0; t < 3; ++t) {
    std::uint64_t id = 0;
    std::thread([&] { id = gen->next().lo; }).join();
    nodes.insert(opts.layout.decode(id).node);
  }
  // Slots are reused after a thread exits, so sequential threads share node 10.
  EXPECT_EQ(nodes, (std::set<std::uint64_t>{10}));
  std::uint64_t a = 0, b = 0;
  std::latch both(2);
  std::thread ta([&] {
    a = gen->next().lo;
    both.arrive_and_wait();
  });
  std::thread tb([&] {
    b = gen->next().lo;
    both.arrive_and_wait();
  });
  ta.join();
  tb.join();
  EXPECT_NE(opts.layout.decode(a).node, opts.layout.decode(b).node);
}

TEST(ThreadLocal, RunningOutOfNodeIdsIsAnError) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto opts = manual_options(clock);
  opts.node = 1023;  // the last node id: room for one thread only
  auto gen = make_generator("thread-local", opts);
  gen->next();
  bool threw = false;
  std::thread other([&] {
    try {
      gen->next();
    } catch (const NodeError&) {
      threw = true;
    }
  });
  other.join();
  EXPECT_TRUE(threw);
}

TEST(Uuid, VersionAndVariantBitsAreSet) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  for (auto [name, version] : {std::pair{"uuidv7", 7}, {"uuidv7-random", 7}, {"uuidv4", 4}}) {
    auto gen = make_generator(name, manual_options(clock));
    const Uuid u = gen->next().to_uuid();
    EXPECT_EQ(u.version(), version) << name;
    EXPECT_EQ(u.bytes[8] >> 6, 0b10) << name;
    if (version == 7) {
      EXPECT_EQ(u.v7_unix_ms(), static_cast<std::uint64_t>(kStartMs)) << name;
    }
  }
}

// uuidv7-random promises 74 random bits per ID (rand_a and rand_b): each of them takes both
// values over a few hundred IDs (a bit left constant does so with probability 2^-255), and
// the version and variant stay put. Catches a random source narrower than the fields, or bits
// of it shifted out.
TEST(Uuid, V7RandomVariesEachOfItsRandomBits) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto gen = make_generator("uuidv7-random", manual_options(clock));
  constexpr std::uint64_t kRandA = 0xFFF;
  constexpr std::uint64_t kRandB = (std::uint64_t{1} << 62) - 1;
  Id any_one{0, 0};
  Id all_ones{~std::uint64_t{0}, ~std::uint64_t{0}};
  for (int i = 0; i < 256; ++i) {
    const Id id = gen->next();
    any_one = Id{any_one.hi | id.hi, any_one.lo | id.lo};
    all_ones = Id{all_ones.hi & id.hi, all_ones.lo & id.lo};
  }
  EXPECT_EQ(any_one.hi & kRandA, kRandA);
  EXPECT_EQ(all_ones.hi & kRandA, 0u);
  EXPECT_EQ(any_one.lo & kRandB, kRandB);
  EXPECT_EQ(all_ones.lo & kRandB, 0u);
}

// The buffer hands out words of 4, 8 and 10 bytes from one stream, and across its refills:
// none of them repeats a value of its kind (a 64-bit repeat in a few thousand draws has odds
// of about 2^-40).
TEST(Random, MixedTakesAcrossRefillsDoNotRepeat) {
  std::set<std::uint64_t> words;
  std::set<std::pair<std::uint64_t, std::uint16_t>> eighties;
  constexpr int kRounds = 2'000;  // 22 bytes a round: about ten 4 KiB refills
  for (int i = 0; i < kRounds; ++i) {
    words.insert(random_u64());
    const Random80 r = random_80();
    eighties.insert({r.word, r.half});
    (void)random_u32();
  }
  EXPECT_EQ(words.size(), static_cast<std::size_t>(kRounds));
  EXPECT_EQ(eighties.size(), static_cast<std::size_t>(kRounds));
}

TEST(Random, AForkedChildDoesNotReplayTheParentsBuffer) {
  random_u64();  // fill this thread's buffer before forking
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    const std::uint64_t v = random_u64();
    (void)!write(pipe_fds[1], &v, sizeof v);
    _exit(0);
  }
  const std::uint64_t parent = random_u64();
  std::uint64_t child = 0;
  ASSERT_EQ(read(pipe_fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  waitpid(pid, nullptr, 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_NE(parent, child);
}

TEST(Concurrency, SharedGeneratorsStayUniqueAcrossThreads) {
  for (std::string_view name :
       {"mutex", "cas", "thread-local", "uuidv7", "auto-increment", "ticket-pair"}) {
    auto gen = make_generator(name, GeneratorOptions{});
    constexpr int kThreads = 4;
    constexpr int kPerThread = 20'000;
    std::vector<std::vector<Id>> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) ids[t].push_back(gen->next());
      });
    }
    for (auto& th : threads) th.join();
    std::vector<Id> all;
    for (auto& v : ids) {
      if (name != "ticket-pair") {
        EXPECT_TRUE(std::is_sorted(v.begin(), v.end())) << name;
      }
      all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << name;
  }
}

// --- UUIDv1/v6 and the clock-sequence policy.

// A GenerationStore in memory: what a generator stored, and what it loads at start.
class MemoryStore final : public GenerationStore {
 public:
  std::optional<Generations> load(std::uint64_t node) override {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = stored_.find(node);
    if (it == stored_.end()) return std::nullopt;
    return it->second;
  }
  void store(std::uint64_t node, const Generations& gens) override {
    std::lock_guard<std::mutex> lock(mu_);
    stored_[node] = gens;
    ++stores_;
  }
  int stores() {
    std::lock_guard<std::mutex> lock(mu_);
    return stores_;
  }

 private:
  std::mutex mu_;
  std::map<std::uint64_t, Generations> stored_;
  int stores_ = 0;
};

// RFC 9562 Appendix A.1 and A.5: 2022-02-22T19:22:22Z, clock sequence 0x33C8, node
// 9F6BDECED846, as v1 and as v6.
TEST(DceUuid, IssuesTheRfcExampleFromItsTimeClockSequenceAndNode) {
  for (const auto& [name, expected] :
       {std::pair{"uuidv1", "c232ab00-9414-11ec-b3c8-9f6bdeced846"},
        std::pair{"uuidv6", "1ec9414c-232a-6b00-b3c8-9f6bdeced846"}}) {
    auto clock = std::make_shared<ManualClock>(std::int64_t{1645557742} * 1'000'000'000);
    GeneratorOptions opts = manual_options(clock, PolicyKind::clock_sequence);
    auto store = std::make_shared<MemoryStore>();
    store->store(0, {0x33C8, 0x33C8, -1, -1});
    opts.generation_store = store;
    opts.uuid_node = 0x9F6BDECED846;
    EXPECT_EQ(make_generator(name, opts)->next().to_uuid().to_string(), expected) << name;
  }
}

TEST(DceUuid, ARandomNodeHasTheMulticastBitSet) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  for (const char* name : {"uuidv1", "uuidv6"}) {
    const Id id = make_generator(name, manual_options(clock))->next();
    EXPECT_NE(id.lo & (std::uint64_t{1} << 40), 0u) << name;
    EXPECT_EQ(id.lo >> 62, 0b10u) << name;
  }
  GeneratorOptions opts = manual_options(clock);
  opts.uuid_node = std::uint64_t{1} << 48;
  EXPECT_THROW(make_generator("uuidv6", opts), NodeError);
}

TEST(DceUuid, OneIdPerHundredNanosecondsSpinsToTheNextTick) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000, /*relax_step_ns=*/100);
  auto gen = make_generator("uuidv6", manual_options(clock));
  const Id a = gen->next();
  const Id b = gen->next();  // same 100 ns: spins one relax step
  EXPECT_EQ(clock->steady_ns(), 100);
  EXPECT_LT(a, b);
}

// The acceptance in miniature: a step back under clock-sequence issues at once (no relax,
// so no wait) under a new clock sequence, stored before the ID is returned, and every ID is
// unique.
TEST(ClockSequence, AStepBackChangesTheClockSequenceWithoutWaiting) {
  for (const char* name : {"uuidv1", "uuidv6"}) {
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000, /*relax_step_ns=*/0);
    GeneratorOptions opts = manual_options(clock, PolicyKind::clock_sequence);
    auto store = std::make_shared<MemoryStore>();
    opts.generation_store = store;
    auto gen = make_generator(name, opts);
    std::set<Id> ids;
    for (int step = 0; step < 3; ++step) {
      for (int i = 0; i < 100; ++i) {
        ids.insert(gen->next());
        clock->advance_ns(100);
      }
      clock->step_wall_ms(-200);
    }
    ids.insert(gen->next());
    EXPECT_EQ(ids.size(), 301u) << name;
    EXPECT_EQ(store->stores(), 4) << name
                                  << ": one durable write at start, one per new clock sequence";
    EXPECT_EQ(clock->steady_ns(), 300 * 100) << name << " waited";
  }
}

TEST(ClockSequence, WithoutAGenerationFieldItWaitsAsWaitDoes) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto gen = make_generator("mutex", manual_options(clock, PolicyKind::clock_sequence));
  const Id before = gen->next();
  clock->step_wall_ms(-5);
  EXPECT_GT(gen->next(), before);
  EXPECT_GE(clock->steady_ns(), 5'000'000);
}

constexpr std::string_view kGen2 = "ts=41,node=8,gen=2,seq=12,epoch=1288834974657";

TEST(ClockSequence, CasRefusesALayoutWithGenBits) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  GeneratorOptions opts = manual_options(clock, PolicyKind::clock_sequence);
  opts.layout = Layout::parse(kGen2, kStartMs);
  EXPECT_THROW(make_generator("cas", opts), Error);
  opts.policy = Policy::of(PolicyKind::refuse);
  EXPECT_NO_THROW(make_generator("cas", opts));
}

// Snowflake on a layout with 2 gen bits: three backward steps, each deeper than the last,
// are three new generations (no wait); the fourth, inside the window where every generation
// issued, waits for the clock; no ID repeats.
TEST(ClockSequence, GenBitsCarryASnowflakeThroughThreeStepsThenItWaits) {
  for (const char* name : {"mutex", "thread-local"}) {
    auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000, /*relax_step_ns=*/100'000);
    GeneratorOptions opts = manual_options(clock, PolicyKind::clock_sequence);
    opts.layout = Layout::parse(kGen2, kStartMs);
    opts.node = 5;
    auto gen = make_generator(name, opts);
    std::set<Id> ids;
    std::set<std::uint64_t> gens;
    for (int step = 0; step < 4; ++step) {
      for (int i = 0; i < 50; ++i) {
        const Id id = gen->next();
        ids.insert(id);
        gens.insert(opts.layout.decode(id.lo).gen);
        EXPECT_EQ(opts.layout.decode(id.lo).node, 5u);
        clock->advance_ms(1);
      }
      EXPECT_EQ(clock->steady_ns(), (step + 1) * 50'000'000) << name << " waited";
      clock->step_wall_ms(-100);
    }
    EXPECT_EQ(gens.size(), 4u) << name;
    ids.insert(gen->next());  // the fourth step: generations spent inside the window, waits
    EXPECT_EQ(ids.size(), 201u) << name;
    EXPECT_GE(clock->steady_ns(), 200'000'000 + 99'000'000) << name << " did not wait";
  }
}

}  // namespace
}  // namespace idbench
