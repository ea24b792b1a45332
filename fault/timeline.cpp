// timeline.cpp — a run's instant 0, its waiting loop, its history and its progress lines
// (see timeline.hpp).
#include "fault/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::fault {

Instant Instant::now() { return {plumbing::true_ns(), plumbing::monotonic_ns()}; }

void wait_watching(std::int64_t deadline_mono_ns, const std::function<void()>& watch) {
  for (std::int64_t now = plumbing::monotonic_ns(); now < deadline_mono_ns;
       now = plumbing::monotonic_ns()) {
    plumbing::throw_if_interrupted();
    if (watch) watch();
    // A signal cuts the sleep short; the loop then sees it.
    plumbing::sleep_until_mono(std::min(deadline_mono_ns, now + kWatchStepNs));
  }
  plumbing::throw_if_interrupted();
}

Timeline::Timeline(std::string command, std::string scenario, std::FILE* progress)
    : prefix_(fmt::format("{} {}", command, scenario)), progress_(progress), start_(Instant::now()) {}

void Timeline::start_in(std::int64_t margin_ns) {
  const Instant now = Instant::now();
  start_ = {now.true_ns + margin_ns, now.mono_ns + margin_ns};
}

FaultRecord Timeline::record(int node, std::string kind, std::string what) {
  return record_at(Instant::now(), node, std::move(kind), std::move(what));
}

FaultRecord Timeline::record_at(Instant at, int node, std::string kind, std::string what,
                                std::optional<std::int64_t> faked_ns) {
  say(fmt::format("+{:.2f} s  {}", static_cast<double>(at.true_ns - start_.true_ns) / 1e9, what));
  history_.push_back({at.true_ns, at.mono_ns, node, std::move(kind), std::move(what), faked_ns});
  return history_.back();
}

FaultRecord Timeline::note(int node, std::string what) {
  const Instant at = Instant::now();
  say("note: " + what);
  history_.push_back({at.true_ns, at.mono_ns, node, "note", std::move(what), std::nullopt});
  return history_.back();
}

void Timeline::say(std::string_view line) const {
  if (progress_ == nullptr) return;
  fmt::print(progress_, "{}: {}\n", prefix_, line);
  std::fflush(progress_);
}

}  // namespace idbench::fault
