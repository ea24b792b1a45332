#include "chaos/faketime.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;

// What libfaketime 0.9.10 computes from a setting "+O [xR]" for a process started at s.
std::int64_t libfaketime_reads(const std::string& setting, std::int64_t s, std::int64_t t) {
  std::istringstream in(setting);
  double offset_s = 0;
  in >> offset_s;
  double rate = 1.0;
  std::string r;
  if (in >> r) rate = std::stod(r.substr(1));
  return t + std::llround((rate - 1.0) * static_cast<double>(t - s)) + std::llround(offset_s * 1e9);
}

TEST(ClockModel, StepsMoveTheClockAndTheSettingFollows) {
  ClockModel m(kT0, kT0);
  m.step(kT0 + 2 * kS, -200'000'000);
  EXPECT_EQ(m.fake_at(kT0 + 3 * kS), kT0 + 3 * kS - 200'000'000);
  const std::int64_t s = kT0 - 7 * kS;
  EXPECT_NEAR(libfaketime_reads(m.setting_for(s), s, kT0 + 3 * kS), m.fake_at(kT0 + 3 * kS), 2);
}

TEST(ClockModel, ARateChangeDoesNotStepTheClockWhateverTheProcessStart) {
  for (std::int64_t start_ago : {0, 3, 500}) {
    const std::int64_t s = kT0 - start_ago * kS;
    ClockModel m(kT0, kT0 + 5 * kS);
    const std::int64_t t1 = kT0 + kS;
    const std::int64_t before = libfaketime_reads(m.setting_for(s), s, t1);
    m.set_rate(t1, 0.5);
    const std::int64_t after = libfaketime_reads(m.setting_for(s), s, t1);
    EXPECT_NEAR(after, before, 2) << start_ago;
    // Half speed from then on.
    EXPECT_NEAR(libfaketime_reads(m.setting_for(s), s, t1 + 2 * kS), before + kS, 2);
    m.set_rate(t1 + 2 * kS, 1.0);
    EXPECT_NEAR(libfaketime_reads(m.setting_for(s), s, t1 + 3 * kS), before + 2 * kS, 2);
  }
}

TEST(ClockModel, ARateChangeJumpsForwardWhenItsWriteLandsLate) {
  const std::int64_t s = kT0 - kS;
  for (double rate : {0.5, 0.95, 1.05, 2.0}) {
    for (std::int64_t delay_us : {0, 30, 400, 999}) {
      ClockModel m(kT0, kT0);
      const std::string before = m.setting_for(s);
      const std::int64_t now = kT0 + kS;
      m.change_rate(now, rate, 1'000'000);
      const std::int64_t landed = now + delay_us * 1000;
      const std::int64_t old_reading = libfaketime_reads(before, s, landed);
      const std::int64_t new_reading = libfaketime_reads(m.setting_for(s), s, landed);
      EXPECT_GE(new_reading, old_reading - 2) << rate << " " << delay_us;
      EXPECT_LE(new_reading, old_reading + static_cast<std::int64_t>(std::abs(rate - 1) * 1e6) + 2)
          << rate << " " << delay_us;
    }
  }
}

TEST(ClockModel, SettingAlwaysNamesTheRate) {
  // libfaketime keeps the previous rate when a setting has none: x1 must be explicit.
  ClockModel m(kT0, kT0 + 1'500'000'000);
  EXPECT_EQ(m.setting_for(kT0 - kS), "+1.500000000 x1.000000000");
  m.step(kT0, -3 * kS);
  EXPECT_EQ(m.setting_for(kT0 - kS), "-1.500000000 x1.000000000");
}

TEST(Calibration, RecoversTheLibraryStart) {
  const std::int64_t s = kT0 - 12'345'678;
  const std::int64_t t = kT0;
  const std::int64_t fake = libfaketime_reads(std::string(kCalibrationSetting), s, t);
  EXPECT_NEAR(lib_start_from_calibration(t, fake), s, 2);
}

TEST(WriteSetting, ReplacesTheFileWhole) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("idbench-ft-{}", ::getpid());
  fs::create_directories(dir);
  const std::string path = (dir / "node-0.faketime").string();
  write_setting(path, "+0 x2");
  write_setting(path, "-1.250000000");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "-1.250000000\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  fs::remove_all(dir);
}

TEST(NodeEnvironment, SetsTheTrapsAndDropsFaketime) {
  ::setenv("FAKETIME", "+5", 1);  // would silently override the timestamp file
  ::setenv("ASAN_OPTIONS", "detect_leaks=1", 1);
  const auto env = node_environment("/tmp/x.faketime", "/lib/libfaketimeMT.so.1");
  ::unsetenv("FAKETIME");
  ::unsetenv("ASAN_OPTIONS");
  const auto has = [&](const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  EXPECT_TRUE(has("LD_PRELOAD=/lib/libfaketimeMT.so.1"));
  EXPECT_TRUE(has("FAKETIME_TIMESTAMP_FILE=/tmp/x.faketime"));
  EXPECT_TRUE(has("FAKETIME_NO_CACHE=1"));
  EXPECT_TRUE(has("DONT_FAKE_MONOTONIC=1"));
  EXPECT_TRUE(has("TZ=UTC"));
  EXPECT_TRUE(has("ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0"));
  EXPECT_FALSE(has("FAKETIME=+5"));
  EXPECT_TRUE(std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return e.rfind("FAKETIME_SHARED=/faketime_sem_idbench_", 0) == 0;
  }));
}

}  // namespace
}  // namespace idbench::chaos
