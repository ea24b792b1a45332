#include "bench/cap.hpp"

#include <algorithm>
#include <vector>

namespace idbench::bench {

std::optional<IdTimeSummary> merge_spans(std::span<const TickSpan> spans) {
  IdTimeSummary s;
  bool any = false;
  for (const TickSpan& t : spans) {
    if (t.empty()) continue;
    s.first_tick = any ? std::min(s.first_tick, t.first) : t.first;
    s.last_tick = any ? std::max(s.last_tick, t.last) : t.last;
    s.total += t.total;
    any = true;
  }
  if (!any) return std::nullopt;
  // A thread contributes to the global first tick only if it started there, and to the last
  // only if it ended there; a thread that spent its whole run in the first tick is already
  // counted whole by its first-tick count.
  std::uint64_t in_edges = 0;
  for (const TickSpan& t : spans) {
    if (t.empty()) continue;
    const bool starts_at_first = t.first == s.first_tick;
    if (starts_at_first) in_edges += t.first_count();
    if (t.last == s.last_tick && !(starts_at_first && t.first == t.last)) in_edges += t.in_last;
  }
  s.interior_ticks = s.last_tick - s.first_tick - 1;
  s.interior_ids = s.interior_ticks >= 1 ? s.total - in_edges : 0;
  return s;
}

std::optional<double> rate_by_id_time(const IdTimeSummary& s, double tick_seconds) {
  if (s.interior_ticks < 1 || tick_seconds <= 0) return std::nullopt;
  return static_cast<double>(s.interior_ids) /
         (static_cast<double>(s.interior_ticks) * tick_seconds);
}

std::optional<double> cap_ratio(const IdTimeSummary& s, double cap_ids_per_tick) {
  if (s.interior_ticks < 1 || cap_ids_per_tick <= 0) return std::nullopt;
  return static_cast<double>(s.interior_ids) /
         (static_cast<double>(s.interior_ticks) * cap_ids_per_tick);
}

FormatCap format_cap(const Layout& layout, std::uint64_t nodes) {
  FormatCap c;
  c.ids_per_tick = (static_cast<double>(layout.max_seq()) + 1) * static_cast<double>(nodes);
  c.tick_seconds = static_cast<double>(layout.unit_ms()) / 1000.0;
  c.ids_per_second = layout.cap_per_second() * static_cast<double>(nodes);
  return c;
}

std::uint64_t distinct_nodes(const Layout& layout, std::span<const std::uint64_t> ids) {
  std::vector<std::uint64_t> nodes;
  nodes.reserve(ids.size());
  for (std::uint64_t id : ids) nodes.push_back(layout.decode(id).node);
  std::sort(nodes.begin(), nodes.end());
  return static_cast<std::uint64_t>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
}

}  // namespace idbench::bench
