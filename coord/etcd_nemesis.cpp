// etcd_nemesis.cpp — etcd member faults played on a private cluster (see etcd_nemesis.hpp).
#include "coord/etcd_nemesis.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace idbench::coord {

void EtcdNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  std::string what = step.what;
  if (step.op == "kill-leader") {
    down_member_ = cluster_.leader();
    if (!down_member_) throw Error("etcd has no leader to kill");
    cluster_.kill9(*down_member_);
    what = fmt::format("{} (member m{})", step.what, *down_member_);
  } else if (step.op == "stop-follower") {
    const auto leader = cluster_.leader();
    down_member_ = leader && *leader == 0 ? 1 : 0;
    cluster_.stop(*down_member_);
    what = fmt::format("{} (member m{})", step.what, *down_member_);
  } else if (step.op == "restart-member") {
    if (down_member_) cluster_.start(*down_member_);
  } else if (step.op == "pause-member") {
    cluster_.pause(step.node);
  } else if (step.op == "resume-member") {
    cluster_.resume(step.node);
  } else {
    throw std::logic_error(fmt::format("the etcd nemesis does not play '{}'", step.op));
  }
  t.record_at(step.at.value_or(fault::Instant::now()), fault::kNoNode, step.kind, std::move(what));
}

void EtcdNemesis::teardown(fault::Timeline& /*t*/) {
  for (int m = 0; m < cluster_.members(); ++m) cluster_.resume(m);
}

}  // namespace idbench::coord
