#include "chaos/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

#include "chaos/process.hpp"
#include "chaos/record.hpp"
#include "check/checker.hpp"
#include "generators/clock.hpp"
#include "generators/errors.hpp"

namespace idbench::chaos {
namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::size_t kMaxDuplicateMarks = 200;
constexpr std::size_t kMaxDuplicateExamples = 5;

std::vector<Record> read_records(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};  // a node killed before it created the file issued nothing
  std::fseek(f, 0, SEEK_END);
  const long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  // A kill -9 can cut the last write short: keep the whole records, count the rest as lost.
  std::vector<Record> records(static_cast<std::size_t>(bytes) / sizeof(Record));
  const std::size_t got = std::fread(records.data(), sizeof(Record), records.size(), f);
  std::fclose(f);
  records.resize(got);
  return records;
}

struct DoneLine {
  std::int64_t stuck_since_true_ns = -1;
};

// thread index → what the .done file says; empty when the incarnation was killed.
std::vector<DoneLine> read_done(const std::string& path, unsigned threads) {
  std::vector<DoneLine> out;
  const std::string text = read_text_file(path);
  if (text.empty()) return out;
  out.resize(threads);
  std::istringstream in(text);
  std::string w1, w2, w3;
  unsigned t = 0;
  std::uint64_t records = 0;
  std::int64_t stuck = -1;
  while (in >> w1 >> t >> w2 >> records >> w3 >> stuck) {
    if (t < threads) out[t].stuck_since_true_ns = stuck;
  }
  return out;
}

std::map<std::string, std::string> read_messages(const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(read_text_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab != std::string::npos) out.emplace(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::vector<std::pair<double, double>> as_ms(const std::vector<Interval>& v, std::int64_t origin) {
  std::vector<std::pair<double, double>> out;
  for (const Interval& i : merged(v)) out.emplace_back(ms(i.from - origin), ms(i.to - origin));
  return out;
}

}  // namespace

std::string Promise::text() const {
  std::vector<std::string> parts;
  if (within_process) parts.emplace_back("unique within each process");
  if (across_restart) parts.emplace_back("across restarts (persisted high-water mark)");
  if (across_nodes) parts.emplace_back("across nodes");
  if (no_wrap) parts.emplace_back("never wraps its timestamp");
  if (parts.empty()) return "nothing";
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  return out;
}

std::optional<std::int64_t> embedded_unix_ms(const Id& id, const RunFacts& facts) {
  if (facts.width == IdWidth::bits64) {
    if (!facts.layout) return std::nullopt;
    return facts.layout->unix_ms_of_tick(facts.layout->decode(id.lo).tick);
  }
  if (!facts.time_based) return std::nullopt;
  // RFC 9562 §5.7: the top 48 bits are Unix ms; the next 4 the version.
  if (((id.hi >> 12) & 0xF) != 7) return std::nullopt;
  return static_cast<std::int64_t>(id.hi >> 16);
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

Analysis analyse(const RunFacts& facts, std::size_t timeline_buckets) {
  Analysis a;
  const std::int64_t origin = facts.start_true_ns;
  const std::int64_t run_ns = std::max<std::int64_t>(1, facts.stop_true_ns - facts.start_true_ns);
  const std::int64_t reference_start_ms =
      Clock::floor_div(facts.start_true_ns + facts.reference_offset_ns, 1'000'000);

  std::vector<IdStream> streams;
  std::vector<TimedId> all;
  a.timeline.reference_start_unix_ms = reference_start_ms;
  a.timeline.nodes.resize(facts.nodes.size());
  a.timeline.refused.resize(facts.nodes.size());
  a.timeline.down.resize(facts.nodes.size());
  const double bucket_ns = static_cast<double>(run_ns) / static_cast<double>(timeline_buckets);
  std::vector<std::vector<Timeline::Point>> buckets(
      facts.nodes.size(), std::vector<Timeline::Point>(timeline_buckets, {0, 0, 0, 0}));
  std::int64_t skew_min = std::numeric_limits<std::int64_t>::max();
  std::int64_t skew_max = std::numeric_limits<std::int64_t>::min();
  bool any_time = false;

  for (std::size_t k = 0; k < facts.nodes.size(); ++k) {
    const NodeFacts& node = facts.nodes[k];
    NodeFigures nf;
    nf.node = static_cast<int>(k);
    nf.node_id = node.node_id;
    std::vector<Interval> refused;
    std::vector<Interval> stalled;
    unsigned max_threads = 0;
    for (const auto& inc : node.incarnations) max_threads = std::max(max_threads, inc.threads);
    const std::size_t first_stream = streams.size();
    for (unsigned t = 0; t < max_threads; ++t) {
      IdStream s;
      s.name = fmt::format("node{}/thread{}", k, t);
      s.width = facts.width;
      streams.push_back(std::move(s));
    }

    for (std::size_t i = 0; i < node.incarnations.size(); ++i) {
      const IncarnationFacts& inc = node.incarnations[i];
      const int ki = static_cast<int>(k);
      const int ii = static_cast<int>(i);
      const auto done =
          read_done(fmt::format("{}/{}", facts.run_dir, done_file_name(ki, ii)), inc.threads);
      for (const auto& [kind, text] :
           read_messages(fmt::format("{}/{}", facts.run_dir, messages_file_name(ki, ii)))) {
        a.refusal_messages.emplace(kind, text);
      }
      std::size_t issued = 0;
      for (unsigned t = 0; t < inc.threads; ++t) {
        const auto records = read_records(
            fmt::format("{}/{}", facts.run_dir, record_file_name(ki, ii, static_cast<int>(t))));
        IdStream& stream = streams[first_stream + t];
        std::int64_t refusing_since = -1;
        for (const Record& r : records) {
          const std::int64_t call_start = r.true_ns - std::int64_t{r.call_us} * 1000;
          if (r.kind == static_cast<std::uint16_t>(RecordKind::refusal)) {
            ++a.refusals;
            ++nf.refusals;
            ++a.refusals_by_kind[refusal_kind_name(static_cast<RefusalKind>(r.detail))];
            a.refused_behind_max_ms =
                std::max(a.refused_behind_max_ms, static_cast<std::int64_t>(r.hi));
            if (refusing_since < 0) refusing_since = call_start;
            continue;
          }
          ++issued;
          if (refusing_since >= 0) {
            refused.push_back({refusing_since, r.true_ns});
            refusing_since = -1;
          }
          if (std::int64_t{r.call_us} * 1000 > kStallThresholdNs) {
            stalled.push_back({call_start, r.true_ns});
          }
          const Id id{r.hi, r.lo};
          if (facts.width == IdWidth::bits64) {
            stream.ids64.push_back(r.lo);
          } else {
            stream.ids128.push_back(id);
          }
          all.push_back({id, r.true_ns, static_cast<std::uint16_t>(k),
                         static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(t)});
          if (const auto emb = embedded_unix_ms(id, facts)) {
            any_time = true;
            const std::int64_t reference_ms =
                Clock::floor_div(r.true_ns + facts.reference_offset_ns, 1'000'000);
            skew_min = std::min(skew_min, *emb - reference_ms);
            skew_max = std::max(skew_max, *emb - reference_ms);
            if (*emb < reference_start_ms - kDayMs) ++a.wrapped_ids;
            const double x = static_cast<double>(r.true_ns - origin);
            if (x >= 0 && x < static_cast<double>(run_ns)) {
              auto& p = buckets[k][static_cast<std::size_t>(x / bucket_ns)];
              const double y = static_cast<double>(*emb - reference_start_ms);
              if (p.ids == 0) {
                p.y_min_ms = p.y_max_ms = y;
              } else {
                p.y_min_ms = std::min(p.y_min_ms, y);
                p.y_max_ms = std::max(p.y_max_ms, y);
              }
              ++p.ids;
            }
          }
        }
        // A stretch of refusals still open when the process ended (stopped or killed).
        if (refusing_since >= 0) refused.push_back({refusing_since, inc.end_true_ns});
        // A thread still inside next() at the stop (a long `wait`): stalled until the end.
        if (t < done.size() && done[t].stuck_since_true_ns >= 0) {
          stalled.push_back({done[t].stuck_since_true_ns, inc.end_true_ns});
        }
      }
      nf.ids_per_incarnation.push_back(issued);
    }

    std::vector<Interval> away = node.paused;
    away.insert(away.end(), node.down.begin(), node.down.end());
    away = clipped(merged(away), facts.start_true_ns, facts.stop_true_ns);
    std::vector<Interval> blocked = refused;
    blocked.insert(blocked.end(), stalled.begin(), stalled.end());
    const auto unavailable =
        clipped(subtract(blocked, away), facts.start_true_ns, facts.stop_true_ns);
    const auto refused_clipped =
        clipped(subtract(refused, away), facts.start_true_ns, facts.stop_true_ns);
    nf.refused_ms = ms(total_length(refused_clipped));
    nf.unavailable_ms = ms(total_length(unavailable));
    nf.down_ms = ms(total_length(away));
    nf.max_stall_ms = ms(longest(unavailable));
    a.max_stall_ms = std::max(a.max_stall_ms, nf.max_stall_ms);
    a.timeline.refused[k] = as_ms(refused_clipped, origin);
    a.timeline.down[k] = as_ms(away, origin);
    a.nodes.push_back(std::move(nf));
  }

  double unavailable_share = 0;
  for (const auto& nf : a.nodes) unavailable_share += nf.unavailable_ms / ms(run_ns);
  a.availability = a.nodes.empty() ? 1.0 : 1.0 - unavailable_share / a.nodes.size();

  // Duplicates and order: the shared checker is the authority.
  const CheckReport report = check_streams(streams, kMaxDuplicateExamples);
  a.ids = report.total;
  a.duplicates = report.duplicates;
  a.order_violations = report.order_violations();
  for (const auto& s : report.streams) a.streams.push_back({s.name, s.count, s.order_violations});

  // Classification, examples and the k-sort bound need the true times: sort (id, true time).
  std::sort(all.begin(), all.end(), [](const TimedId& x, const TimedId& y) {
    return x.id != y.id ? x.id < y.id : x.true_ns < y.true_ns;
  });
  std::size_t classified = 0;
  std::vector<Timeline::Mark> marks;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j].id == all[i].id) ++j;
    if (j - i > 1) {
      const TimedId& first = all[i];  // the earliest copy in true time
      for (std::size_t d = i + 1; d < j; ++d) {
        ++classified;
        if (all[d].node != first.node) {
          ++a.duplicates_across_nodes;
        } else if (all[d].incarnation != first.incarnation) {
          ++a.duplicates_across_restart;
        } else {
          ++a.duplicates_within_process;
        }
        if (const auto emb = embedded_unix_ms(all[d].id, facts)) {
          marks.push_back({ms(all[d].true_ns - origin),
                           static_cast<double>(*emb - reference_start_ms),
                           static_cast<int>(all[d].node)});
        }
      }
      if (a.duplicate_examples.size() < kMaxDuplicateExamples) {
        DuplicateExample ex;
        ex.id = to_text(first.id, facts.width);
        for (std::size_t d = i; d < j; ++d) {
          ex.places.push_back(
              {all[d].node, all[d].incarnation, all[d].thread, ms(all[d].true_ns - origin)});
        }
        a.duplicate_examples.push_back(std::move(ex));
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
  a.ksort_bound_ms = ms(ksort_bound_ns(all));
  if (any_time) {
    a.id_skew_min_ms = static_cast<double>(skew_min);
    a.id_skew_max_ms = static_cast<double>(skew_max);
  }

  for (std::size_t k = 0; k < buckets.size(); ++k) {
    for (std::size_t b = 0; b < buckets[k].size(); ++b) {
      Timeline::Point p = buckets[k][b];
      if (p.ids == 0) continue;
      p.x_ms = ms(static_cast<std::int64_t>((static_cast<double>(b) + 0.5) * bucket_ns));
      a.timeline.nodes[k].push_back(p);
    }
  }
  return a;
}

}  // namespace idbench::chaos
