// faults_analysis.cpp — the figures of a fault run, as pure passes over the IDs it recorded:
// duplicates (the shared checker), order, availability, the ticket pair's drift, timeline.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "chaos/analysis.hpp"
#include "check/checker.hpp"
#include "real/faults.hpp"

namespace idbench::real {
namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// A layout's epoch is checked against no time here: the IDs were issued already.
constexpr std::int64_t kNoEpochCheck = std::numeric_limits<std::int64_t>::max();

// unix_ms_of() reads a layout only for IdTime::layout (Instagram's next_id()); the others
// carry their time in a fixed place.
const Layout& no_layout() {
  static const Layout layout = Layout::parse("twitter");
  return layout;
}

// What "smaller" means for order: the ID itself, or for a UUID its embedded time (a v1 UUID
// begins with the low bits of its timestamp, so its bytes do not sort by time).
struct OrderKey {
  IdTime id_time;
  Id operator()(const Id& id) const {
    if (id_time != IdTime::uuid && id_time != IdTime::uuidv7) return id;
    const auto t = unix_ms_of(id_time, id, no_layout());
    return Id::from_u64(t ? static_cast<std::uint64_t>(*t) : 0);
  }
};

// One stream per client, in the order it received its IDs (true time within a client is the
// order of its round trips).
std::vector<std::vector<const IssuedId*>> per_client(const FaultRecords& r) {
  std::vector<std::vector<const IssuedId*>> clients;
  for (const IssuedId& s : r.ids) {
    if (clients.size() <= s.client) clients.resize(s.client + 1u);
    clients[s.client].push_back(&s);
  }
  for (auto& c : clients) {
    std::stable_sort(c.begin(), c.end(),
                     [](const IssuedId* a, const IssuedId* b) { return a->mono_ns < b->mono_ns; });
  }
  return clients;
}

void duplicates_pass(const FaultRecords& r, IdWidth width,
                     const std::vector<std::vector<const IssuedId*>>& clients, FaultFigures& f) {
  std::vector<IdStream> streams(clients.size());
  for (std::size_t c = 0; c < clients.size(); ++c) {
    streams[c].name = fmt::format("client{}", c);
    streams[c].width = width;
    for (const IssuedId* s : clients[c]) {
      if (width == IdWidth::bits64) {
        streams[c].ids64.push_back(s->id.lo);
      } else {
        streams[c].ids128.push_back(s->id);
      }
    }
  }
  const CheckReport report = check_streams(streams, 5);
  f.duplicates = report.duplicates;
  f.duplicated_values = report.duplicated_values;
  for (const DuplicateExample& e : report.examples) {
    std::string at;
    for (const DuplicatePlace& p : e.places) {
      const IssuedId* s = clients[p.stream][p.index];
      at += fmt::format("{}{:.1f} ms (client {}, server {})", at.empty() ? "" : ", ",
                        ms(s->true_ns - r.start_true_ns), s->client, s->server);
    }
    f.duplicate_examples.push_back(
        fmt::format("{} x{} at {}", to_text(e.id, width), e.occurrences, at));
  }
}

void order_pass(const std::vector<std::vector<const IssuedId*>>& clients,
                const std::vector<const IssuedId*>& by_time, const OrderKey& key,
                FaultFigures& f) {
  for (const auto& c : clients) {
    for (std::size_t i = 1; i < c.size(); ++i) {
      if (key(c[i]->id) < key(c[i - 1]->id)) ++f.order_violations;
    }
  }
  std::optional<Id> high;
  for (const IssuedId* s : by_time) {
    const Id k = key(s->id);
    if (high && k < *high) ++f.regressions;
    if (!high || *high < k) high = k;
  }
  std::vector<chaos::TimedId> by_id;
  by_id.reserve(by_time.size());
  for (const IssuedId* s : by_time) by_id.push_back({key(s->id), s->true_ns, s->client, 0, 0});
  std::sort(by_id.begin(), by_id.end(), [](const chaos::TimedId& a, const chaos::TimedId& b) {
    return a.id != b.id ? a.id < b.id : a.true_ns < b.true_ns;
  });
  f.ksort_bound_ms = ms(chaos::ksort_bound_ns(by_id));
}

// The longest stretch (monotonic) in which no client received an ID, run edges included.
void availability_pass(const FaultRecords& r, const std::vector<const IssuedId*>& by_time,
                       FaultFigures& f) {
  f.requests = r.requests;
  f.ids = r.ids.size();
  f.failures = r.failures.size();
  f.availability = r.requests ? static_cast<double>(f.ids) / static_cast<double>(r.requests) : 0;
  std::int64_t last = r.start_mono_ns;
  std::int64_t gap = 0;
  for (const IssuedId* s : by_time) {
    gap = std::max(gap, s->mono_ns - last);
    last = std::max(last, s->mono_ns);
  }
  gap = std::max(gap, r.stop_mono_ns - last);
  f.longest_gap_ms = ms(gap);
}

// Two servers: after every ID, how far apart the latest IDs of the two servers are.
void drift_pass(const FaultRecords& r, const std::vector<const IssuedId*>& by_time,
                FaultFigures& f) {
  f.ids_per_server.assign(static_cast<std::size_t>(std::max(r.servers, 1)), 0);
  std::vector<std::optional<std::uint64_t>> latest(f.ids_per_server.size());
  for (const IssuedId* s : by_time) {
    if (s->server >= f.ids_per_server.size()) continue;
    ++f.ids_per_server[s->server];
    latest[s->server] = s->id.lo;
    if (latest.size() == 2 && latest[0] && latest[1]) {
      const std::uint64_t a = *latest[0], b = *latest[1];
      f.max_server_lag = std::max(f.max_server_lag, a > b ? a - b : b - a);
    }
  }
}

void skew(std::optional<double>& lo, std::optional<double>& hi, double v) {
  lo = lo ? std::min(*lo, v) : v;
  hi = hi ? std::max(*hi, v) : v;
}

void timeline_pass(const FaultRecords& r, IdTime id_time, const Layout& layout,
                   const std::vector<const IssuedId*>& by_time, FaultFigures& f) {
  const std::int64_t bucket_ns = static_cast<std::int64_t>(kTimelineBucketMs * 1e6);
  const std::int64_t span = std::max<std::int64_t>(r.stop_mono_ns - r.start_mono_ns, 0);
  const std::size_t n = static_cast<std::size_t>(span / bucket_ns) + 1;
  f.timeline.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    f.timeline[i].t_ms = static_cast<double>(i) * kTimelineBucketMs;
    f.timeline[i].ids.assign(f.ids_per_server.size(), 0);
  }
  auto bucket = [&](std::int64_t mono) {
    const std::int64_t b = std::max<std::int64_t>(mono - r.start_mono_ns, 0) / bucket_ns;
    return std::min(static_cast<std::size_t>(b), n - 1);
  };
  for (const IssuedId* s : by_time) {
    TimelineBucket& b = f.timeline[bucket(s->mono_ns)];
    if (s->server < b.ids.size()) ++b.ids[s->server];
    if (id_time == IdTime::none) continue;
    if (const auto t = unix_ms_of(id_time, s->id, layout)) {
      const double v = static_cast<double>(*t) - ms(s->true_ns);
      skew(b.skew_min_ms, b.skew_max_ms, v);
      skew(f.skew_min_ms, f.skew_max_ms, v);
    }
  }
  for (const FailedRequest& e : r.failures) ++f.timeline[bucket(e.mono_ns)].failures;
}

}  // namespace

FaultFigures analyse_faults(const FaultRecords& records, IdWidth width, IdTime id_time,
                            const std::string& layout) {
  FaultFigures f;
  const auto clients = per_client(records);
  std::vector<const IssuedId*> by_time;
  by_time.reserve(records.ids.size());
  for (const IssuedId& s : records.ids) by_time.push_back(&s);
  std::stable_sort(by_time.begin(), by_time.end(), [](const IssuedId* a, const IssuedId* b) {
    return a->mono_ns < b->mono_ns;
  });
  duplicates_pass(records, width, clients, f);
  order_pass(clients, by_time, OrderKey{id_time}, f);
  availability_pass(records, by_time, f);
  drift_pass(records, by_time, f);
  const Layout parsed = layout.empty() ? no_layout() : Layout::parse(layout, kNoEpochCheck);
  timeline_pass(records, id_time, parsed, by_time, f);
  return f;
}

}  // namespace idbench::real
