// analysis.cpp — the pure passes over a loaded chaos run (see analysis.hpp): the calls and
// availability of each node, the IDs as checker streams, duplicate classification, and the
// timeline with the ID skew.
#include "chaos/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "chaos/scenario.hpp"
#include "check/checker.hpp"
#include "generators/clock.hpp"

namespace idbench::chaos {
namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::size_t kMaxDuplicateMarks = 200;
constexpr std::size_t kMaxDuplicateExamples = 5;

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::vector<std::pair<double, double>> as_ms(const std::vector<Interval>& v, std::int64_t origin) {
  std::vector<std::pair<double, double>> out;
  for (const Interval& i : merged(v)) out.emplace_back(ms(i.from - origin), ms(i.to - origin));
  return out;
}

std::int64_t reference_start_ms(const RunFacts& f) {
  return Clock::floor_div(f.start_true_ns + f.reference_offset_ns, 1'000'000);
}

bool is_refusal(const Record& r) { return fault::is(r, RecordKind::refusal); }

// Where one node could not issue because of its generator.
struct Blocked {
  std::vector<Interval> refused;  // from a refused call until the next ID
  std::vector<Interval> stalled;  // calls that blocked longer than kStallThresholdNs
};

// One incarnation's first call and last ID, true ns (a restart's evidence).
struct CallSpan {
  std::optional<std::int64_t> first_call, last_id;
};

// Counts one incarnation's calls into `a` and `nf`, and collects its blocked stretches.
CallSpan scan_calls(const IncarnationFacts& inc, const IncarnationRecords& recs, Analysis& a,
                    NodeFigures& nf, Blocked& blocked) {
  CallSpan span;
  const auto began = [&span](std::int64_t t) {
    span.first_call = std::min(span.first_call.value_or(t), t);
  };
  for (const auto& [kind, text] : recs.messages) a.refusal_messages.emplace(kind, text);
  std::size_t issued = 0;
  for (std::size_t t = 0; t < recs.threads.size(); ++t) {
    std::int64_t refusing_since = -1;
    for (const Record& r : recs.threads[t]) {
      const std::int64_t call_start = r.true_ns - std::int64_t{r.call_us} * 1000;
      began(call_start);
      if (is_refusal(r)) {
        ++a.refusals;
        ++nf.refusals;
        const auto kind = static_cast<RefusalKind>(r.detail);
        ++a.refusals_by_kind[std::string(name_of(kind))];
        a.refused_behind_max_ms =
            std::max(a.refused_behind_max_ms, static_cast<std::int64_t>(r.hi));
        if (refusing_since < 0) refusing_since = call_start;
        continue;
      }
      ++issued;
      span.last_id = std::max(span.last_id.value_or(r.true_ns), r.true_ns);
      nf.first_id_true_ns = std::min(nf.first_id_true_ns.value_or(r.true_ns), r.true_ns);
      nf.last_id_true_ns = std::max(nf.last_id_true_ns.value_or(r.true_ns), r.true_ns);
      if (refusing_since >= 0) {
        blocked.refused.push_back({refusing_since, r.true_ns});
        refusing_since = -1;
      }
      if (std::int64_t{r.call_us} * 1000 > kStallThresholdNs) {
        blocked.stalled.push_back({call_start, r.true_ns});
      }
    }
    // A stretch of refusals still open when the process ended (stopped or killed).
    if (refusing_since >= 0) blocked.refused.push_back({refusing_since, inc.end_true_ns});
    // A thread still inside next() at the stop (a long `wait`): stalled until the end.
    const std::int64_t stuck =
        t < recs.stuck_since_true_ns.size() ? recs.stuck_since_true_ns[t] : -1;
    if (stuck >= 0) {
      blocked.stalled.push_back({stuck, inc.end_true_ns});
      began(stuck);
    }
  }
  nf.ids_per_incarnation.push_back(issued);
  return span;
}

// The restart of incarnation `i` (i ≥ 1) against the clock steps back node k saw between its
// previous incarnation's last ID and its first call; nullopt when there were none.
std::optional<RestartWindow> restart_window(const RunFacts& f, std::size_t k, int i,
                                            std::int64_t last_id, const CallSpan& span) {
  const std::int64_t until = span.first_call.value_or(f.stop_true_ns);
  std::int64_t back_ms = 0;
  for (const LoggedEvent& e : f.events) {
    const bool ours = e.node == kAllNodes || e.node == static_cast<int>(k);
    if (ours && e.kind == name_of(EventKind::step) && e.step_ms && e.true_ns > last_id &&
        e.true_ns <= until) {
      back_ms -= *e.step_ms;
    }
  }
  if (back_ms <= 0) return std::nullopt;
  return RestartWindow{i, span.first_call, last_id + back_ms * 1'000'000};
}

// Availability pass for one node: refusals, stalls and down time, and its timeline stretches.
NodeFigures node_figures(const RunFacts& f, std::size_t k,
                         const std::vector<IncarnationRecords>& recs, Analysis& a) {
  const NodeFacts& node = f.nodes[k];
  NodeFigures nf;
  nf.node = static_cast<int>(k);
  nf.node_id = node.node_id;
  Blocked blocked;
  std::optional<std::int64_t> last_id;  // the previous incarnation's
  for (std::size_t i = 0; i < node.incarnations.size() && i < recs.size(); ++i) {
    const CallSpan span = scan_calls(node.incarnations[i], recs[i], a, nf, blocked);
    if (i > 0 && last_id) {
      if (auto w = restart_window(f, k, static_cast<int>(i), *last_id, span)) {
        nf.restarts.push_back(*w);
      }
    }
    last_id = span.last_id;
  }
  std::vector<Interval> away = node.paused;
  away.insert(away.end(), node.down.begin(), node.down.end());
  away = clipped(merged(away), f.start_true_ns, f.stop_true_ns);
  std::vector<Interval> all_blocked = blocked.refused;
  all_blocked.insert(all_blocked.end(), blocked.stalled.begin(), blocked.stalled.end());
  const auto unavailable = clipped(subtract(all_blocked, away), f.start_true_ns, f.stop_true_ns);
  const auto refused = clipped(subtract(blocked.refused, away), f.start_true_ns, f.stop_true_ns);
  nf.refused_ms = ms(total_length(refused));
  nf.unavailable_ms = ms(total_length(unavailable));
  nf.down_ms = ms(total_length(away));
  nf.max_stall_ms = ms(longest(unavailable));
  a.timeline.refused[k] = as_ms(refused, f.start_true_ns);
  a.timeline.down[k] = as_ms(away, f.start_true_ns);
  return nf;
}

void availability_pass(const RunFacts& f, const RunRecords& records, Analysis& a) {
  const std::int64_t run_ns = std::max<std::int64_t>(1, f.stop_true_ns - f.start_true_ns);
  a.timeline.refused.resize(f.nodes.size());
  a.timeline.down.resize(f.nodes.size());
  double unavailable_share = 0;
  for (std::size_t k = 0; k < f.nodes.size(); ++k) {
    static const std::vector<IncarnationRecords> kNone;
    const auto& recs = k < records.nodes.size() ? records.nodes[k] : kNone;
    a.nodes.push_back(node_figures(f, k, recs, a));
    a.max_stall_ms = std::max(a.max_stall_ms, a.nodes.back().max_stall_ms);
    unavailable_share += a.nodes.back().unavailable_ms / ms(run_ns);
  }
  a.availability = a.nodes.empty() ? 1.0 : 1.0 - unavailable_share / a.nodes.size();
}

struct RunIds {
  std::vector<IdStream> streams;  // one per node thread, its incarnations in order
  std::vector<TimedId> all;       // every ID with where and when it was issued
};

// The IDs of every node thread as checker streams, and with their true times.
RunIds collect_ids(const RunFacts& f, const RunRecords& records) {
  RunIds out;
  for (std::size_t k = 0; k < f.nodes.size() && k < records.nodes.size(); ++k) {
    unsigned max_threads = 0;
    for (const auto& inc : f.nodes[k].incarnations)
      max_threads = std::max(max_threads, inc.threads);
    const std::size_t first_stream = out.streams.size();
    for (unsigned t = 0; t < max_threads; ++t) {
      IdStream& s = out.streams.emplace_back();
      s.name = fmt::format("node{}/thread{}", k, t);
      s.width = f.width;
    }
    for (std::size_t i = 0; i < records.nodes[k].size(); ++i) {
      const auto& threads = records.nodes[k][i].threads;
      for (std::size_t t = 0; t < threads.size(); ++t) {
        IdStream& stream = out.streams[first_stream + t];
        for (const Record& r : threads[t]) {
          if (is_refusal(r)) continue;
          const Id id{r.hi, r.lo};
          if (f.width == IdWidth::bits64) {
            stream.ids64.push_back(r.lo);
          } else {
            stream.ids128.push_back(id);
          }
          out.all.push_back({id, r.true_ns, static_cast<std::uint16_t>(k),
                             static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(t)});
        }
      }
    }
  }
  return out;
}

// Duplicates and order by the shared checker (the authority), then each duplicate classified
// by where its copies came from. Sorts `all` by (id, true time).
void duplicates_pass(const RunFacts& f, const std::vector<IdStream>& streams,
                     std::vector<TimedId>& all, Analysis& a) {
  const CheckReport report = check_streams(streams, kMaxDuplicateExamples);
  a.ids = report.total;
  a.duplicates = report.duplicates;
  a.order_violations = report.order_violations();
  for (const auto& s : report.streams) a.streams.push_back({s.name, s.count, s.order_violations});

  std::sort(all.begin(), all.end(), [](const TimedId& x, const TimedId& y) {
    return x.id != y.id ? x.id < y.id : x.true_ns < y.true_ns;
  });
  const std::int64_t origin = f.start_true_ns;
  std::size_t classified = 0;
  std::vector<Timeline::Mark> marks;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j].id == all[i].id) ++j;
    const TimedId& first = all[i];  // the earliest copy in true time
    for (std::size_t d = i + 1; d < j; ++d) {
      ++classified;
      if (all[d].node != first.node) {
        ++a.duplicates_across_nodes;
      } else if (f.program && all[d].thread != first.thread) {
        ++a.duplicates_across_instances;  // another instance, another node id
      } else if (all[d].incarnation != first.incarnation) {
        ++a.duplicates_across_restart;
      } else {
        ++a.duplicates_within_process;
      }
      if (const auto emb = embedded_unix_ms(all[d].id, f)) {
        marks.push_back({ms(all[d].true_ns - origin),
                         static_cast<double>(*emb - reference_start_ms(f)),
                         static_cast<int>(all[d].node)});
      }
    }
    if (j - i > 1 && a.duplicate_examples.size() < kMaxDuplicateExamples) {
      DuplicateExample& ex = a.duplicate_examples.emplace_back();
      ex.id = to_text(first.id, f.width);
      for (std::size_t d = i; d < j; ++d) {
        ex.places.push_back(
            {all[d].node, all[d].incarnation, all[d].thread, ms(all[d].true_ns - origin)});
      }
    }
    i = j;
  }
  a.self_check_ok = classified == a.duplicates;
  // An even sample over true time, so a chart shows where duplicates happened, not only the
  // first few hundred (which an ID-ordered walk finds all in one place).
  std::sort(marks.begin(), marks.end(),
            [](const Timeline::Mark& x, const Timeline::Mark& y) { return x.x_ms < y.x_ms; });
  const std::size_t stride = marks.size() / kMaxDuplicateMarks + 1;
  for (std::size_t i = 0; i < marks.size(); i += stride) a.timeline.duplicates.push_back(marks[i]);
}

// The embedded time of every ID against the reference: ID skew, wrapped IDs, and per node
// and bucket of true time the range of embedded times.
void timeline_pass(const RunFacts& f, const std::vector<TimedId>& all, std::size_t buckets,
                   Analysis& a) {
  const std::int64_t run_ns = std::max<std::int64_t>(1, f.stop_true_ns - f.start_true_ns);
  const std::int64_t start_ms = reference_start_ms(f);
  const double bucket_ns = static_cast<double>(run_ns) / static_cast<double>(buckets);
  std::vector<std::vector<Timeline::Point>> grid(
      f.nodes.size(), std::vector<Timeline::Point>(buckets, {0, 0, 0, 0}));
  std::int64_t skew_min = std::numeric_limits<std::int64_t>::max();
  std::int64_t skew_max = std::numeric_limits<std::int64_t>::min();
  for (const TimedId& t : all) {
    const auto emb = embedded_unix_ms(t.id, f);
    if (!emb) continue;
    const std::int64_t reference_ms =
        Clock::floor_div(t.true_ns + f.reference_offset_ns, 1'000'000);
    skew_min = std::min(skew_min, *emb - reference_ms);
    skew_max = std::max(skew_max, *emb - reference_ms);
    if (*emb < start_ms - kDayMs) ++a.wrapped_ids;
    const double x = static_cast<double>(t.true_ns - f.start_true_ns);
    if (x < 0 || x >= static_cast<double>(run_ns)) continue;
    auto& p = grid[t.node][static_cast<std::size_t>(x / bucket_ns)];
    const double y = static_cast<double>(*emb - start_ms);
    p.y_min_ms = p.ids == 0 ? y : std::min(p.y_min_ms, y);
    p.y_max_ms = p.ids == 0 ? y : std::max(p.y_max_ms, y);
    ++p.ids;
  }
  if (skew_min <= skew_max) {
    a.id_skew_min_ms = static_cast<double>(skew_min);
    a.id_skew_max_ms = static_cast<double>(skew_max);
  }
  a.timeline.reference_start_unix_ms = start_ms;
  a.timeline.nodes.resize(f.nodes.size());
  for (std::size_t k = 0; k < grid.size(); ++k) {
    for (std::size_t b = 0; b < grid[k].size(); ++b) {
      Timeline::Point p = grid[k][b];
      if (p.ids == 0) continue;
      p.x_ms = ms(static_cast<std::int64_t>((static_cast<double>(b) + 0.5) * bucket_ns));
      a.timeline.nodes[k].push_back(p);
    }
  }
}

}  // namespace

std::string Promise::text() const {
  std::vector<std::string> parts;
  if (within_process) {
    parts.emplace_back(program ? "unique within each instance" : "unique within each process");
  }
  if (across_restart) {
    parts.emplace_back(program ? "across its restarts"
                               : "across restarts (persisted high-water mark)");
  }
  if (across_instances) parts.emplace_back("across instances");
  if (across_nodes) parts.emplace_back("across nodes");
  if (no_wrap) parts.emplace_back("never wraps its timestamp");
  if (parts.empty()) return "nothing";
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  return out;
}

std::optional<std::int64_t> embedded_unix_ms(const Id& id, const RunFacts& facts) {
  if (facts.id_time == IdTime::none) return std::nullopt;
  if (facts.layout) return unix_ms_of(facts.id_time, id, *facts.layout);
  if (facts.id_time == IdTime::layout) return std::nullopt;  // no layout to decode it with
  // unix_ms_of reads the layout only for IdTime::layout; any layout serves the others.
  static const Layout kUnused =
      Layout::parse("twitter", std::numeric_limits<std::int64_t>::max() / 1'000'000);
  return unix_ms_of(facts.id_time, id, kUnused);
}

std::int64_t ksort_bound_ns(const std::vector<TimedId>& by_id) {
  // Walk in ID order keeping the latest true time among strictly smaller IDs: any later ID
  // issued earlier than that contradicts the order, by that much.
  std::int64_t bound = 0;
  std::int64_t latest_smaller = std::numeric_limits<std::int64_t>::min();
  std::size_t i = 0;
  while (i < by_id.size()) {
    std::size_t j = i;
    std::int64_t group_latest = std::numeric_limits<std::int64_t>::min();
    for (; j < by_id.size() && by_id[j].id == by_id[i].id; ++j) {
      if (latest_smaller != std::numeric_limits<std::int64_t>::min()) {
        bound = std::max(bound, latest_smaller - by_id[j].true_ns);
      }
      group_latest = std::max(group_latest, by_id[j].true_ns);
    }
    latest_smaller = std::max(latest_smaller, group_latest);
    i = j;
  }
  return bound;
}

Analysis analyse(const RunFacts& facts, const RunRecords& records, std::size_t timeline_buckets) {
  Analysis a;
  availability_pass(facts, records, a);
  RunIds ids = collect_ids(facts, records);
  duplicates_pass(facts, ids.streams, ids.all, a);
  a.ksort_bound_ms = ms(ksort_bound_ns(ids.all));
  timeline_pass(facts, ids.all, std::max<std::size_t>(1, timeline_buckets), a);
  a.fault_check = check_faults(facts, records);
  return a;
}

Analysis analyse(const RunFacts& facts, std::size_t timeline_buckets) {
  return analyse(facts, load_run_records(facts), timeline_buckets);
}

}  // namespace idbench::chaos
