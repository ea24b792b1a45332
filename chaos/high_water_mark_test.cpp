#include "chaos/high_water_mark.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "generators/registry.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kT0Ms = 1'700'000'000'000;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "idbench-hwm-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(HighWaterMark, MissingFileMeansNoMark) {
  TempDir dir;
  EXPECT_EQ(HighWaterMark(dir.file("m")).load(), std::nullopt);
}

TEST(HighWaterMark, StoreThenLoadGivesItBackAndLeavesNoTempFile) {
  TempDir dir;
  HighWaterMark mark(dir.file("m"));
  mark.store(kT0Ms);
  EXPECT_EQ(mark.load(), kT0Ms);
  mark.store(kT0Ms + 5);
  EXPECT_EQ(mark.load(), kT0Ms + 5);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(dir.file("m")).parent_path())) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"m"});
}

// Two nodes given one node id (worker-collision --persist) store one mark file;
// a shared temp name `m.tmp` made one writer rename the other's file away (ENOENT).
TEST(HighWaterMark, TwoWritersOfOneMarkNeverTripOverEachOther) {
  TempDir dir;
  std::atomic<int> failures{0};
  auto writer = [&](std::int64_t base) {
    HighWaterMark mark(dir.file("node-0.hwm"));
    for (int i = 0; i < 150; ++i) {
      try {
        mark.store(base + i);
      } catch (const HighWaterMarkError&) {
        failures.fetch_add(1, std::memory_order_relaxed);  // counted only; joined below
      }
    }
  };
  std::thread a(writer, kT0Ms);
  std::thread b(writer, kT0Ms + 1000);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(HighWaterMark(dir.file("node-0.hwm")).load().has_value());
}

TEST(HighWaterMark, CorruptFileIsAnErrorNotADefault) {
  TempDir dir;
  for (const char* text : {"", "abc\n", "12 34\n", "17000000000000x"}) {
    write_file(dir.file("m"), text);
    EXPECT_THROW(HighWaterMark(dir.file("m")).load(), HighWaterMarkError) << "'" << text << "'";
  }
}

// A file of 70 zeros was once read as its first 64 bytes, a valid-looking 0; 0, a
// negative mark and INT64_MAX are not marks a Clock can reach either.
TEST(HighWaterMark, OutOfRangeOrLongMarksAreCorrupt) {
  TempDir dir;
  for (const std::string& text :
       {std::string(70, '0'), std::string("0\n"), std::string("-5\n"),
        std::string("9223372036854775807\n"), std::string("01700000000000\n"),
        std::string("1700000000000\n\n"), std::string(100, '1')}) {
    write_file(dir.file("m"), text);
    EXPECT_THROW(HighWaterMark(dir.file("m")).load(), HighWaterMarkError) << "'" << text << "'";
  }
  write_file(dir.file("m"), "9223372036854\n");  // the last ms a Clock can express
  EXPECT_EQ(HighWaterMark(dir.file("m")).load(), 9'223'372'036'854);
}

std::string load_error(const std::string& path) {
  try {
    HighWaterMark(path).load();
  } catch (const HighWaterMarkError& e) {
    return e.what();
  }
  return "(no error)";
}

// A CRLF mark once printed a value that looked valid; a corrupt one dumped raw bytes.
TEST(HighWaterMark, TheErrorShowsTheBytesEscapedNeverRaw) {
  TempDir dir;
  write_file(dir.file("m"), "1700000000000\r\n");
  EXPECT_NE(load_error(dir.file("m")).find(R"("1700000000000\r\n" (15 bytes))"),
            std::string::npos)
      << load_error(dir.file("m"));
  write_file(dir.file("m"), std::string("\x1b[31m\0\xff\n", 8));
  const std::string msg = load_error(dir.file("m"));
  EXPECT_NE(msg.find(R"("\x1b[31m\x00\xff\n")"), std::string::npos) << msg;
  for (const char c : msg) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_FALSE(u < 0x20 || u == 0x7f || u == 0xff) << "raw byte " << int(u) << " in " << msg;
  }
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
}

TEST(HighWaterMark, MissingDirectoryIsAnErrorOnStore) {
  TempDir dir;
  EXPECT_THROW(HighWaterMark(dir.file("no/such/dir/m")).store(1), HighWaterMarkError);
}

TEST(LookaheadMs, OnlyBorrowIssuesAheadOfTheClock) {
  for (const auto& info : policy_catalog()) {
    const Policy p = Policy::of(info.kind);
    EXPECT_EQ(lookahead_ms(p), info.kind == PolicyKind::borrow ? p.bound_ms : 0) << info.name;
  }
}

TEST(ReservingClock, StoresTheReservationBeforeReturningTheReading) {
  TempDir dir;
  auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
  HighWaterMark mark(dir.file("m"));
  ReservingClock clock(manual, mark, /*lookahead_ms=*/0, /*reserve_ms=*/1000, std::nullopt);
  EXPECT_EQ(clock.wall_ns(), kT0Ms * 1'000'000);
  EXPECT_EQ(mark.load(), kT0Ms + 1000);
  EXPECT_EQ(clock.stores(), 1);
}

TEST(ReservingClock, ReadsInsideTheReservationDoNotWrite) {
  TempDir dir;
  auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
  ReservingClock clock(manual, HighWaterMark(dir.file("m")), 0, 1000, std::nullopt);
  for (int i = 0; i < 999; ++i) {
    clock.wall_ns();
    manual->advance_ms(1);
  }
  EXPECT_EQ(clock.stores(), 1);
  clock.wall_ns();  // kT0Ms + 999: still covered
  manual->advance_ms(2);
  clock.wall_ns();  // past it: a second reservation
  EXPECT_EQ(clock.stores(), 2);
  EXPECT_EQ(HighWaterMark(dir.file("m")).load(), kT0Ms + 1001 + 1000);
}

TEST(ReservingClock, CoversTheBorrowLookahead) {
  TempDir dir;
  auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
  ReservingClock clock(manual, HighWaterMark(dir.file("m")), 1000, 500, std::nullopt);
  clock.wall_ns();
  EXPECT_EQ(clock.reserved_unix_ms(), kT0Ms + 1000 + 500);
}

TEST(ReservingClock, AnExistingMarkAheadOfTheClockIsNotRewritten) {
  TempDir dir;
  HighWaterMark mark(dir.file("m"));
  mark.store(kT0Ms + 5000);
  auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
  ReservingClock clock(manual, mark, 0, 1000, mark.load());
  clock.wall_ns();
  EXPECT_EQ(clock.stores(), 0);
  EXPECT_EQ(mark.load(), kT0Ms + 5000);
}

TEST(ReservingClock, EveryReadingIsCoveredWhenThreadsRace) {
  TempDir dir;
  auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
  ReservingClock clock(manual, HighWaterMark(dir.file("m")), 7, 20, std::nullopt);
  std::atomic<int> uncovered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (i % 10 == 0) manual->advance_ns(500'000);
        const std::int64_t r = clock.wall_ns();
        if (clock.reserved_unix_ms() < Clock::floor_div(r, 1'000'000) + 7) ++uncovered;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(uncovered.load(), 0);
  EXPECT_EQ(HighWaterMark(dir.file("m")).load(), clock.reserved_unix_ms());
}

// One process lifetime: a generator over `manual`, reserving in `mark` when `persist`.
std::vector<Id> issue(const std::string& variant, const Policy& policy,
                      const std::shared_ptr<ManualClock>& manual, const HighWaterMark& mark,
                      bool persist, int count) {
  GeneratorOptions opts;
  opts.policy = policy;
  opts.node = 3;
  opts.clock = manual;
  if (persist) {
    opts.resume_after_unix_ms = mark.load();
    opts.clock = std::make_shared<ReservingClock>(manual, mark, lookahead_ms(policy), 1000,
                                                  opts.resume_after_unix_ms);
  }
  auto gen = make_generator(variant, opts);
  std::vector<Id> ids;
  while (static_cast<int>(ids.size()) < count) {
    try {
      ids.push_back(gen->next());
      if (ids.size() % 100 == 0) manual->advance_ms(1);  // 100 IDs per ms
    } catch (const ClockError&) {
      manual->advance_ms(1);  // refused: time passes until the policy lets it issue
    }
  }
  return ids;
}

std::size_t common(std::vector<Id> a, std::vector<Id> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<Id> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

TEST(RestartDuringRegression, TheMarkPreventsReissueForEveryVariantAndPromisingPolicy) {
  for (const auto& v : variants()) {
    if (!v.time_based) continue;
    for (const auto& info : policy_catalog()) {
      const Policy policy = Policy::of(info.kind);
      if (!policy.promises_uniqueness()) continue;
      TempDir dir;
      HighWaterMark mark(dir.file("m"));
      auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
      const auto before = issue(std::string(v.name), policy, manual, mark, true, 3000);
      manual->step_wall_ms(-500);  // kill -9, then the clock steps back
      const auto after = issue(std::string(v.name), policy, manual, mark, true, 60'000);
      EXPECT_EQ(common(before, after), 0u) << v.name << " " << info.name;
    }
  }
}

TEST(RestartDuringRegression, WithoutTheMarkASnowflakeReissuesIds) {
  // The control: the same restart without a mark duplicates, which is why the mark exists.
  for (const auto& v : variants()) {
    if (!v.uses_layout) continue;
    TempDir dir;
    HighWaterMark mark(dir.file("m"));
    auto manual = std::make_shared<ManualClock>(kT0Ms * 1'000'000);
    const Policy refuse = Policy::of(PolicyKind::refuse);
    const auto before = issue(std::string(v.name), refuse, manual, mark, false, 3000);
    manual->step_wall_ms(-500);
    const auto after = issue(std::string(v.name), refuse, manual, mark, false, 60'000);
    EXPECT_GT(common(before, after), 0u) << v.name;
  }
}

}  // namespace
}  // namespace idbench::chaos
