#include "bench/summary.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "bench/floors.hpp"

namespace idbench::bench {

IdModel id_model_of(const Variant& v, const Layout& layout) {
  // Every generator gets the counting clock; one that reads no clock never waits, and its
  // wait_ratio of 0 says so.
  IdModel m{.id_time = v.id_time, .layout = std::nullopt, .counts_waits = true};
  if (v.id_time != IdTime::none) m.layout = layout;
  return m;
}

Percentiles percentiles_ns(const LatencyHistogram& h, const TickCalibration& ticks) {
  return {
      .p50_ns = ticks.ns_of(h.value_at_quantile(0.50)),
      .p99_ns = ticks.ns_of(h.value_at_quantile(0.99)),
      .p999_ns = ticks.ns_of(h.value_at_quantile(0.999)),
      .max_ns = ticks.ns_of(h.max()),
  };
}

RunSummary summarize(std::span<const ThreadResult> threads, const IdModel& model,
                     const TickCalibration& ticks, bool with_service) {
  RunSummary s;
  LatencyHistogram latency;
  LatencyHistogram service;
  std::vector<TickSpan> spans;
  std::vector<std::uint64_t> edge_ids;  // first and last ID of each thread, for node ids
  std::uint64_t start = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t end = 0;
  std::uint64_t waited = 0;
  int threads_that_ran = 0;
  for (const ThreadResult& t : threads) {
    if (t.calls == 0) continue;
    latency.merge(t.latency);
    if (with_service) service.merge(t.service);
    spans.push_back(t.span);
    edge_ids.push_back(t.first_id.lo);
    edge_ids.push_back(t.last_id.lo);
    start = std::min(start, t.start_ticks);
    end = std::max(end, t.end_ticks);
    s.ids += t.calls;
    waited += t.waited_calls;
    ++threads_that_ran;
  }
  s.seconds = end > start ? ticks.ns_of(end - start) / 1e9 : 0;
  s.ids_per_s_wall = s.seconds > 0 ? static_cast<double>(s.ids) / s.seconds : 0;
  s.ids_per_s = s.ids_per_s_wall;
  if (!with_service) s.ns_per_id = ns_per_id(threads_that_ran, s.ids_per_s_wall);
  s.latency = percentiles_ns(latency, ticks);
  s.latency_samples = latency.count();
  if (with_service) s.service = percentiles_ns(service, ticks);
  if (model.counts_waits && s.ids > 0) {
    s.wait_ratio = static_cast<double>(waited) / static_cast<double>(s.ids);
  }

  const std::optional<IdTimeSummary> id_time = merge_spans(spans);
  if (!id_time) return s;
  std::optional<double> by_ids;
  if (model.id_time == IdTime::layout && model.layout) {
    s.nodes_used = distinct_nodes(*model.layout, edge_ids);
    const FormatCap cap = format_cap(*model.layout, *s.nodes_used);
    s.cap_per_s = cap.ids_per_second;
    s.cap_ratio = cap_ratio(*id_time, cap.ids_per_tick);
    by_ids = rate_by_id_time(*id_time, cap.tick_seconds);
  } else if (model.id_time != IdTime::none) {
    by_ids = rate_by_id_time(*id_time, 0.001);  // spans of Unix ms
  }
  if (by_ids) s.ids_per_s = *by_ids;
  return s;
}

}  // namespace idbench::bench
