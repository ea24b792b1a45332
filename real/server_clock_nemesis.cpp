// server_clock_nemesis.cpp — the real servers' faked wall clock, stepped (see
// server_clock_nemesis.hpp).
#include "real/server_clock_nemesis.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace idbench::real {
namespace {

// The entries of chaos's node environment that fake a clock; the rest of it is this
// process's own environment, which the server inherits anyway.
std::vector<std::string> faking_entries(const std::string& file) {
  std::vector<std::string> out;
  for (const std::string& e : chaos::node_environment(file, chaos::find_libfaketime())) {
    const std::string key = e.substr(0, e.find('='));
    if (key == "LD_PRELOAD" || key.starts_with("FAKETIME") || key == "DONT_FAKE_MONOTONIC" ||
        key == "TZ") {
      out.push_back(e);
    }
  }
  return out;
}

// True time, anchored now: the model computes in doubles from its anchor, so an anchor near
// the instants it is read at keeps it exact to the ns (anchored at 0, 1.8e18 ns away, it is not).
chaos::ClockModel true_time() {
  const std::int64_t now = fault::Instant::now().true_ns;
  return {now, now};
}

}  // namespace

ServerClockNemesis::ServerClockNemesis()
    : dir_("idbench-faults"),
      file_(dir_.path() + "/faketime"),
      env_(faking_entries(file_)),
      clock_(true_time()) {
  write();
}

void ServerClockNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  if (step.op != "step") {
    throw std::logic_error(fmt::format("the server clock nemesis does not play '{}'", step.op));
  }
  // At rate 1 the anchor of a step does not change the offset; it only dates the jump.
  clock_.step(step.at ? step.at->true_ns : fault::Instant::now().true_ns, step.step_ns);
  write();
  const fault::Instant landed = fault::Instant::now();
  t.record_at(step.at.value_or(landed), fault::kNoNode, step.kind, step.what,
              clock_.fake_at(landed.true_ns));
}

// The library's start time in the server is irrelevant at rate 1 (see the header): 0 stands
// for any.
void ServerClockNemesis::write() const { chaos::write_setting(file_, clock_.setting_for(0)); }

}  // namespace idbench::real
