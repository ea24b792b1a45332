// judge.cpp — a worker-id run's verdict from its analysis (see judge.hpp).
#include "coord/judge.hpp"

#include <fmt/format.h>

namespace idbench::coord {

fault::Verdict judge(const WorkerAnalysis& a) {
  fault::Verdict v;
  const std::size_t nodes = a.nodes.size();
  const std::string among =
      fmt::format("among {} IDs from {} node{}", a.ids, nodes, nodes == 1 ? "" : "s");
  std::string silent;
  for (const WorkerNodeFigures& n : a.nodes) {
    if (n.ids == 0) silent += fmt::format("{}node {} issued no ID", silent.empty() ? "" : "; ", n.node);
  }
  if (a.duplicates > 0) {
    v.outcome = fault::Outcome::duplicates;
    v.evidence = fmt::format("duplicates issued: {} {}", a.duplicates, among);
  } else if (nodes == 0 || !silent.empty()) {
    // 0 duplicates among a node's 0 IDs proves nothing about that node.
    v.outcome = fault::Outcome::no_evidence;
    v.evidence = nodes == 0 ? "no node ran" : silent;
  } else {
    v.outcome = fault::Outcome::kept;
    v.evidence = "no ID issued twice " + among;
  }
  for (const WorkerNodeFigures& n : a.nodes) {
    if (n.zombie_ids == 0) continue;
    v.findings.push_back(
        fmt::format("node {} issued {} IDs under a worker id another node had claimed after it",
                    n.node, n.zombie_ids));
  }
  return v;
}

}  // namespace idbench::coord
