// snapshot_nemesis.cpp — a real server's data directory copied and restored (see
// snapshot_nemesis.hpp).
#include "real/snapshot_nemesis.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace idbench::real {

void SnapshotNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  if (step.op == "snapshot") {
    const fault::Instant began = step.at.value_or(fault::Instant::now());
    copy_ = server_.snapshot();
    t.record_at(began, fault::kNoNode, step.kind, step.what);
  } else if (step.op == "restore") {
    if (copy_.empty()) {
      throw std::logic_error("the snapshot nemesis restores only after a snapshot");
    }
    server_.stop();
    const fault::Instant put_back = step.at.value_or(fault::Instant::now());
    server_.restore(copy_);
    server_.start();
    t.record_at(put_back, fault::kNoNode, step.kind, step.what);
  } else {
    throw std::logic_error(fmt::format("the snapshot nemesis does not play '{}'", step.op));
  }
}

void SnapshotNemesis::teardown(fault::Timeline& /*t*/) {
  if (!server_.running()) server_.start();
}

}  // namespace idbench::real
