// fault_check.cpp — did each clock fault reach the program (see fault_check.hpp): the faults
// a run played, each node's streams of clock evidence, and the rule applied to them.
#include "chaos/fault_check.hpp"

#include <algorithm>
#include <cmath>

#include "chaos/analysis.hpp"
#include "chaos/run_records.hpp"
#include "chaos/scenario.hpp"

namespace idbench::chaos {
namespace {

// One piece of clock evidence: an ID (d = embedded − true, ms), a refusal, or a call still
// blocked at the end of its incarnation.
struct Sample {
  std::int64_t true_ns = 0;        // when the call returned (or the incarnation ended)
  std::int64_t call_start_ns = 0;  // when it began
  double d_ms = 0;
  enum Kind { id, refusal, stuck } kind = id;
  bool clock_refusal = false;  // a refusal because the clock was behind (not epoch, not other)
};
using Stream = std::vector<Sample>;

struct ClockFault {
  int node = 0;
  std::int64_t t = 0;        // when the driver began writing the node's new setting
  std::int64_t landed = 0;   // when the write was done
  std::int64_t end = 0;
  std::string what;
  std::string kind;  // base, step, rate
  double step_ms = 0;
  double rate_to = 1;  // rate: fake − true drifts by (rate_to − 1) per unit of true time
  double base_ms = 0;
  // The nominal size of the change, for the resolution check.
  double nominal_ms() const {
    if (kind == "base") return std::abs(base_ms);
    if (kind == "step") return std::abs(step_ms);
    return std::abs(rate_to - 1) * static_cast<double>(end - landed) / 1e6;
  }
};

double ms_of(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The clock faults played on node k, each with its window's end.
std::vector<ClockFault> faults_of(const RunFacts& f, int k) {
  std::vector<ClockFault> out;
  const NodeFacts& node = f.nodes[static_cast<std::size_t>(k)];
  const double base = ms_of(node.clock_offset_ns);
  if (base != 0) {
    out.push_back({k, f.start_true_ns, f.start_true_ns, 0, "clock base", "base", 0, 1, base});
  }
  std::size_t write = 0;
  for (const LoggedEvent& e : f.events) {
    const bool clock = e.kind == name_of(EventKind::step) || e.kind == name_of(EventKind::resume) ||
                       e.kind == name_of(EventKind::set_rate);
    if (!clock || (e.node != kAllNodes && e.node != k)) continue;
    ClockFault c{k, e.true_ns, e.true_ns, 0, e.what, "step", 0, 1, 0};
    if (write < node.clock_writes.size()) {
      c.t = std::min(e.true_ns, node.clock_writes[write].from);
      c.landed = node.clock_writes[write].to;
    }
    ++write;
    if (e.kind == name_of(EventKind::set_rate)) {
      c.kind = "rate";
      c.rate_to = e.rate.value_or(1.0);
    } else {
      c.step_ms = static_cast<double>(e.step_ms.value_or(0));
    }
    out.push_back(c);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].end = i + 1 < out.size() ? out[i + 1].t : f.stop_true_ns;
  }
  // A step of 0 (a resume without catch-up) and a rate back to ×1 change nothing the IDs can
  // show against the moment before (d = faked − true stops drifting): they only end the
  // window of the fault before them.
  std::erase_if(out, [](const ClockFault& c) {
    return (c.kind == "step" && c.step_ms == 0) || (c.kind == "rate" && c.rate_to == 1.0);
  });
  return out;
}

// Node k's evidence: one stream per thread (its incarnations in order), or the probe.
std::vector<Stream> streams_of(const RunFacts& f, const RunRecords& r, std::size_t k,
                               bool probe = false) {
  std::vector<Stream> out;
  if (k >= r.nodes.size()) return out;
  const auto& incs = r.nodes[k];
  if (probe) {
    Stream& s = out.emplace_back();
    for (const auto& inc : incs) {
      for (const ProbeSample& p : inc.probe) {
        s.push_back({p.true_ns, p.true_ns, ms_of(p.fake_ns - p.true_ns), Sample::id});
      }
    }
    return out;
  }
  for (std::size_t i = 0; i < incs.size(); ++i) {
    const std::int64_t end = i < f.nodes[k].incarnations.size()
                                 ? f.nodes[k].incarnations[i].end_true_ns
                                 : f.stop_true_ns;
    for (std::size_t t = 0; t < incs[i].threads.size(); ++t) {
      if (out.size() <= t) out.resize(t + 1);
      for (const Record& rec : incs[i].threads[t]) {
        const std::int64_t began = rec.true_ns - std::int64_t{rec.call_us} * 1000;
        if (fault::is(rec, RecordKind::refusal)) {
          const auto why = static_cast<RefusalKind>(rec.detail);
          out[t].push_back({rec.true_ns, began, 0, Sample::refusal,
                            why == RefusalKind::clock_moved_backwards ||
                                why == RefusalKind::wait_bound_exceeded ||
                                why == RefusalKind::borrow_limit_exceeded});
          continue;
        }
        const auto emb = embedded_unix_ms(Id{rec.hi, rec.lo}, f);
        if (!emb) continue;
        out[t].push_back({rec.true_ns, began, static_cast<double>(*emb) - ms_of(rec.true_ns),
                          Sample::id});
      }
      const auto& stuck = incs[i].stuck_since_true_ns;
      if (t < stuck.size() && stuck[t] >= 0) out[t].push_back({end, stuck[t], 0, Sample::stuck});
    }
  }
  for (Stream& s : out) {
    std::stable_sort(s.begin(), s.end(),
                     [](const Sample& a, const Sample& b) { return a.true_ns < b.true_ns; });
  }
  return out;
}

// The leading offset of a run of IDs: the largest d, and the mid true time of the run.
struct Leading {
  double l_ms = 0;
  std::int64_t mid_ns = 0;
};
std::optional<Leading> leading(const std::vector<const Sample*>& ids) {
  if (ids.empty()) return std::nullopt;
  Leading out{ids.front()->d_ms, 0};
  for (const Sample* s : ids) out.l_ms = std::max(out.l_ms, s->d_ms);
  out.mid_ns = ids.front()->true_ns + (ids.back()->true_ns - ids.front()->true_ns) / 2;
  return out;
}

enum class Shown { yes, no, undetermined };
struct StreamResult {
  Shown shown = Shown::undetermined;
  std::optional<double> delta_ms;
  std::string how;
};

// A window of IDs for a leading offset: at least n of them and, where the embedded time is
// coarse (a KSUID's seconds), at least one resolution unit of true time, so that the maximum
// meets an ID issued just after the embedded time ticked.
bool window_full(const std::vector<const Sample*>& w, std::size_t n, std::int64_t resolution_ms) {
  return w.size() >= n &&
         w.back()->true_ns - w.front()->true_ns >= (resolution_ms > 1 ? resolution_ms * 1'000'000 : 0);
}

StreamResult judge_base(const Stream& s, const ClockFault& f, std::size_t n,
                        std::int64_t resolution_ms) {
  std::vector<const Sample*> first;
  for (const Sample& x : s) {
    if (x.kind == Sample::id && !window_full(first, n, resolution_ms)) first.push_back(&x);
  }
  const auto l = leading(first);
  if (!l) return {Shown::undetermined, std::nullopt, "no ID"};
  const bool closer = std::abs(l->l_ms - f.base_ms) < std::abs(l->l_ms);
  return {closer ? Shown::yes : Shown::no, l->l_ms, "IDs"};
}

// Drops all but the last IDs of `w` that still make a full window.
void keep_last(std::vector<const Sample*>& w, std::size_t n, std::int64_t resolution_ms) {
  std::size_t from = w.size();
  std::vector<const Sample*> tail;
  while (from > 0) {
    tail.insert(tail.begin(), w[--from]);
    if (window_full(tail, n, resolution_ms)) break;
  }
  w.erase(w.begin(), w.begin() + static_cast<long>(from));
}

// A step back also shows as refusals, or as a call blocked through the whole window.
std::optional<std::string> refused_or_stalled(const Stream& s, const ClockFault& f) {
  if (f.kind != "step" || f.step_ms >= 0) return std::nullopt;
  const auto grace = static_cast<std::int64_t>(kGraceMs * 1e6);
  for (const Sample& x : s) {
    if (x.clock_refusal && x.true_ns > f.t && x.true_ns <= f.end) return "refused";
    if (x.kind != Sample::refusal && x.call_start_ns <= f.landed + grace &&
        x.true_ns >= f.end) {
      return "stalled";
    }
  }
  return std::nullopt;
}

StreamResult judge_change(const Stream& s, const ClockFault& f, std::size_t batch,
                          std::size_t n, std::int64_t resolution_ms) {
  std::vector<const Sample*> before, after;
  std::size_t skipped = 0;
  const auto grace = static_cast<std::int64_t>(kGraceMs * 1e6);
  for (const Sample& x : s) {
    if (x.kind != Sample::id) continue;
    if (x.true_ns < f.t) {
      before.push_back(&x);
    } else if (x.true_ns > f.landed && skipped < batch) {
      ++skipped;  // possibly from a request made before the fault
    } else if (x.true_ns > f.landed + grace && x.true_ns <= f.end) {
      after.push_back(&x);
    }
  }
  keep_last(before, n, resolution_ms);
  keep_last(after, n, resolution_ms);
  const auto lb = leading(before);
  const auto la = leading(after);
  // A generator that refused or blocked saw the clock go back, whatever it issued later (a
  // persisted mark can carry a restarted one ahead of its clock).
  const auto refused = lb ? refused_or_stalled(s, f) : std::nullopt;
  if (lb && la) {
    const double expected =
        f.kind == "step" ? f.step_ms : (f.rate_to - 1) * ms_of(la->mid_ns - f.t);
    const double delta = la->l_ms - lb->l_ms;
    if (delta * (expected < 0 ? -1 : 1) >= kShownFraction * std::abs(expected)) {
      return {Shown::yes, delta, "IDs"};
    }
    return {refused ? Shown::yes : Shown::no, delta, refused.value_or("IDs")};
  }
  if (refused) return {Shown::yes, std::nullopt, *refused};
  return {Shown::undetermined, std::nullopt,
          lb ? "too few IDs after it" : "no ID before it"};
}

FaultVerification verify(const ClockFault& f, const std::vector<Stream>& streams,
                         std::size_t batch, std::int64_t resolution_ms, bool probe) {
  FaultVerification v{f.node, f.t, f.what, f.kind, 0, std::nullopt, FaultOutcome::unverified,
                      "no evidence"};
  v.expected_ms = f.kind == "base"   ? f.base_ms
                  : f.kind == "step" ? f.step_ms
                                     : (f.rate_to - 1) * ms_of(f.end - f.t);
  if (f.nominal_ms() < std::max(kMinVerifiableMs, 2.0 * static_cast<double>(resolution_ms))) {
    v.outcome = FaultOutcome::below_resolution;
    v.how = "below the resolution of the IDs' time";
    return v;
  }
  const std::size_t n = std::max(batch, kWindowIds);
  std::size_t yes = 0, no = 0;
  std::vector<double> deltas;
  std::string how_yes, how_other;
  for (const Stream& s : streams) {
    const StreamResult r = f.kind == "base" ? judge_base(s, f, n, resolution_ms)
                                            : judge_change(s, f, batch, n, resolution_ms);
    if (r.delta_ms) deltas.push_back(*r.delta_ms);
    if (r.shown == Shown::yes) {
      ++yes;
      if (how_yes.empty()) how_yes = r.how;
    } else if (r.shown == Shown::no) {
      ++no;
    } else if (how_other.empty()) {
      how_other = r.how;
    }
  }
  if (!deltas.empty()) {
    std::sort(deltas.begin(), deltas.end());
    v.observed_ms = deltas[deltas.size() / 2];
  }
  if (yes > 0 && yes >= no) {
    v.outcome = FaultOutcome::applied;
    v.how = probe ? "probe" : how_yes;
  } else if (no > yes) {
    v.outcome = FaultOutcome::not_applied;
    v.how = probe ? "probe" : "IDs";
  } else {
    v.how = how_other.empty() ? "no evidence" : how_other;
  }
  return v;
}

bool any_id(const std::vector<Stream>& streams) {
  for (const Stream& s : streams) {
    for (const Sample& x : s) {
      if (x.kind == Sample::id) return true;
    }
  }
  return false;
}

}  // namespace

std::string_view name_of(FaultOutcome o) { return plumbing::name_in(kFaultOutcomeNames, o); }

bool FaultCheck::any(FaultOutcome o) const {
  return std::any_of(faults.begin(), faults.end(),
                     [o](const FaultVerification& f) { return f.outcome == o; });
}

FaultCheck check_faults(const RunFacts& facts, const RunRecords& records) {
  FaultCheck out;
  // IDs that carry no time (IdTime::none, or UUIDs of a version without one): the probe, for
  // a built-in variant; nothing, for a program.
  bool probe = facts.id_time == IdTime::none;
  if (!probe) {
    bool timed = false;
    for (std::size_t k = 0; k < facts.nodes.size() && !timed; ++k) {
      timed = any_id(streams_of(facts, records, k));
    }
    probe = !timed;
  }
  if (probe && facts.program) out.unverifiable = kNoTime;
  out.method = !out.unverifiable.empty() ? kNoTimeMethod : probe ? kProbeMethod : kIdTimesMethod;
  const std::size_t batch = probe ? 1 : std::max<std::size_t>(1, facts.ids_per_request);
  const std::int64_t resolution =
      probe ? 1 : std::max<std::int64_t>(1, facts.id_time_resolution_ms);
  for (std::size_t k = 0; k < facts.nodes.size(); ++k) {
    const std::vector<Stream> streams =
        out.unverifiable.empty() ? streams_of(facts, records, k, probe) : std::vector<Stream>{};
    std::vector<FaultVerification> node;
    bool shown = false;
    for (const ClockFault& f : faults_of(facts, static_cast<int>(k))) {
      FaultVerification v = verify(f, streams, batch, resolution, probe);
      if (!out.unverifiable.empty()) {
        v.outcome = FaultOutcome::unverified;
        v.how = out.unverifiable;
      }
      shown = shown || v.outcome == FaultOutcome::applied;
      node.push_back(std::move(v));
    }
    for (FaultVerification& v : node) {
      // A program's clock is shown to be the faked one only by a fault its IDs resolved.
      if (facts.program && !shown && v.outcome == FaultOutcome::below_resolution) {
        v.outcome = FaultOutcome::unverified;
        v.how = "below the resolution of the IDs' time, and no larger fault on this node showed";
      }
      out.faults.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace idbench::chaos
