// server_nemesis.cpp — a real server's crash and restart (see server_nemesis.hpp).
#include "real/server_nemesis.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace idbench::real {

void ServerCrashNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  if (step.op != "kill" && step.op != "start") {
    throw std::logic_error(fmt::format("the server nemesis does not play '{}'", step.op));
  }
  const fault::Instant at = step.at.value_or(fault::Instant::now());
  if (step.op == "kill") {
    server_.kill9();
  } else {
    server_.start();
  }
  t.record_at(at, fault::kNoNode, step.kind, step.what);
}

void ServerCrashNemesis::teardown(fault::Timeline& /*t*/) {
  if (!server_.running()) server_.start();
}

}  // namespace idbench::real
