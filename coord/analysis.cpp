// analysis.cpp — duplicates, holdings, stops and churn of one worker-id run.
#include "coord/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "generators/errors.hpp"

namespace idbench::coord {

namespace {

// A worker-id node is never killed (only paused), so its record file is whole: a missing file
// or a cut record is an error, not what a kill left.
std::vector<fault::Record> read_ids(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("cannot read {}", path));
  if (bytes % sizeof(fault::Record) != 0) throw Error(fmt::format("{}: a truncated record", path));
  return fault::read_records(path);
}

void read_event(const std::string& line, NodeLog& log) {
  std::istringstream in(line);
  std::string kind;
  in >> kind;
  bool ok = true;
  if (kind == "claim") {
    ClaimEvent c;
    ok = static_cast<bool>(in >> c.at_ns >> c.worker >> c.counter >> c.revision);
    log.claims.push_back(c);
  } else if (kind == "stall" || kind == "hook") {
    Span s;
    ok = static_cast<bool>(in >> s.from_ns >> s.to_ns);
    (kind == "stall" ? log.stalls : log.hooks).push_back(s);
  } else if (kind == "lost") {
    std::int64_t at = 0;
    ok = static_cast<bool>(in >> at);
    log.lost.push_back(at);
  } else if (kind == "renewals") {
    ok = static_cast<bool>(in >> log.renewals);
  } else {
    ok = false;
  }
  if (!ok) throw Error(fmt::format("node {}: malformed event line '{}'", log.node, line));
}

std::vector<Holding> holdings_of(const NodeLog& log, std::int64_t end_ns) {
  std::vector<Holding> out;
  for (std::size_t i = 0; i < log.claims.size(); ++i) {
    const ClaimEvent& c = log.claims[i];
    std::int64_t to = i + 1 < log.claims.size() ? log.claims[i + 1].at_ns : end_ns;
    for (const Span& s : log.stalls) {
      if (s.from_ns >= c.at_ns && s.from_ns < to) to = s.from_ns;
    }
    out.push_back({log.node, c.worker, c.counter, {c.at_ns, to}});
  }
  return out;
}

// IDs of `h`'s node issued after another node claimed the same worker id later than `h`.
std::int64_t zombie_ids(const Holding& h, const NodeLog& log, const std::vector<Holding>& all) {
  std::int64_t first_taken = h.span.to_ns;
  for (const Holding& o : all) {
    if (o.node != h.node && o.worker == h.worker && o.span.from_ns > h.span.from_ns) {
      first_taken = std::min(first_taken, o.span.from_ns);
    }
  }
  if (first_taken >= h.span.to_ns) return 0;
  auto at = [](const fault::Record& r, std::int64_t t) { return r.mono_ns < t; };
  const auto lo = std::lower_bound(log.ids.begin(), log.ids.end(), first_taken, at);
  const auto hi = std::lower_bound(log.ids.begin(), log.ids.end(), h.span.to_ns, at);
  return hi > lo ? hi - lo : 0;
}

WorkerNodeFigures figures_of(const NodeLog& log, const std::vector<Holding>& all, std::int64_t end_ns) {
  WorkerNodeFigures f;
  f.node = log.node;
  f.ids = static_cast<std::int64_t>(log.ids.size());
  f.claims = static_cast<int>(log.claims.size());
  f.renewals = log.renewals;
  f.stalls = log.stalls;
  f.hooks = log.hooks;
  f.lost = log.lost;
  for (const Span& s : log.stalls) f.stalled_ns += s.to_ns - s.from_ns;
  for (std::size_t i = 0; i < log.ids.size(); ++i) {
    const std::int64_t next = i + 1 < log.ids.size() ? log.ids[i + 1].mono_ns : end_ns;
    if (next - log.ids[i].mono_ns > kGapNs) {
      f.gaps.push_back({log.ids[i].mono_ns, next});
      f.unavailable_ns += next - log.ids[i].mono_ns;
    }
  }
  for (const Holding& h : all) {
    if (h.node == log.node) f.zombie_ids += zombie_ids(h, log, all);
  }
  return f;
}

struct Tagged {
  std::uint64_t id;
  std::int64_t at;
  int node;
};

void find_duplicates(const std::vector<NodeLog>& logs, WorkerAnalysis& a) {
  std::vector<Tagged> all;
  for (const NodeLog& l : logs) {
    for (const fault::Record& r : l.ids) all.push_back({r.lo, r.mono_ns, l.node});
  }
  a.ids = static_cast<std::int64_t>(all.size());
  std::sort(all.begin(), all.end(), [](const Tagged& x, const Tagged& y) {
    return x.id != y.id ? x.id < y.id : x.at < y.at;
  });
  std::vector<Duplicate> found;
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].id != all[i - 1].id) continue;
    ++a.duplicates;
    found.push_back({all[i].id, all[i - 1].node, all[i].node, all[i - 1].at, all[i].at});
  }
  // Samples spread over the run (every k-th), in time order.
  const std::size_t step = found.size() / WorkerAnalysis::kMaxSamples + 1;
  for (std::size_t i = 0; i < found.size(); i += step) a.samples.push_back(found[i]);
  std::sort(a.samples.begin(), a.samples.end(),
            [](const Duplicate& x, const Duplicate& y) { return x.at_b_ns < y.at_b_ns; });
}

}  // namespace

NodeLog read_node_log(const std::string& dir, int node) {
  NodeLog log;
  log.node = node;
  log.ids = read_ids(fmt::format("{}/{}", dir, fault::record_file_name(node, 0, 0)));
  const std::string events = fmt::format("{}/node-{}.events", dir, node);
  std::ifstream in(events);
  if (!in) throw Error(fmt::format("cannot read {}", events));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) read_event(line, log);
  }
  return log;
}

WorkerAnalysis analyse(const std::vector<NodeLog>& logs, std::int64_t end_ns) {
  WorkerAnalysis a;
  for (const NodeLog& l : logs) {
    for (Holding& h : holdings_of(l, end_ns)) a.holdings.push_back(h);
  }
  std::set<std::uint64_t> workers;
  for (const Holding& h : a.holdings) {
    workers.insert(h.worker);
    a.worker_space_used = std::max(a.worker_space_used, h.worker + 1);
  }
  a.workers_claimed = static_cast<int>(workers.size());
  for (const NodeLog& l : logs) a.nodes.push_back(figures_of(l, a.holdings, end_ns));
  find_duplicates(logs, a);
  return a;
}

}  // namespace idbench::coord
