// run_plan.cpp — a chaos run's plan, checked before any process starts, and what follows from
// it alone (see run_plan.hpp); also the rate and time-scale checks and the lifetime probe
// driver.hpp declares.
#include "chaos/run_plan.hpp"

#include <fmt/format.h>

#include <limits>
#include <memory>

#include "chaos/high_water_mark.hpp"
#include "external/exec_options.hpp"
#include "generators/errors.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::chaos {
namespace {

// The last ms a Clock can report: wall_ns() is int64 ns since 1970.
constexpr std::int64_t kClockLastMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;

// A policy that promises uniqueness: what an external program's verdict is judged by.
constexpr std::string_view kPromisesUniqueness = "refuse";

std::int64_t plan_true_ms_now() { return Clock::floor_div(plumbing::true_ns(), 1'000'000); }

std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const Scenario& scenario_named(const std::string& name) {
  const Scenario* s = find_scenario(name);
  if (s != nullptr) return *s;
  std::vector<std::string> names;
  for (const auto& sc : scenarios()) names.emplace_back(sc.name);
  throw Error(fmt::format("unknown scenario '{}'; one of: {}", name, one_of(names)));
}

// The description the run reads: the variant's, or the external program's.
Variant resolve_variant(const RunConfig& cfg) {
  if (cfg.exec) {
    if (!cfg.persist_dir.empty()) {
      throw Error("--persist keeps a high-water mark inside idbench's clock; it does not "
                  "apply to --exec");
    }
    return external::exec_variant(*cfg.exec);
  }
  const Variant* v = find_variant(cfg.variant);
  if (v == nullptr) {
    std::vector<std::string> names;
    for (const auto& var : variants()) names.emplace_back(var.name);
    throw Error(fmt::format("unknown variant '{}'; one of: {}", cfg.variant, one_of(names)));
  }
  return *v;
}

// Node k issues as k·T (thread-local: k·T … k·T+T−1). With a collision, node 1 repeats node
// 0's id and the rest move down one place.
void assign_node_ids(RunPlan& p, const Layout& layout) {
  for (int k = 0; k < p.cfg.nodes; ++k) {
    const int place = p.scenario.same_node_id && k >= 1 ? k - 1 : k;
    p.node_ids.push_back(static_cast<std::uint64_t>(place) * p.cfg.threads);
  }
  if (!p.variant.uses_layout) return;
  const std::uint64_t last = p.node_ids.back() + p.cfg.threads - 1;
  if (last > layout.max_node()) {
    throw Error(fmt::format("{} nodes × {} threads need node ids up to {}, beyond {}'s last node id {}",
                            p.cfg.nodes, p.cfg.threads, last, layout.name(), layout.max_node()));
  }
}

// Epoch-exhaustion: the instant the variant's lifetime ends, or why it cannot be reached.
void probe_lifetime(RunPlan& p) {
  if (p.cfg.exec) {
    throw NotApplicable("an external program's lifetime cannot be probed through the clock "
                        "seam: epoch-exhaustion runs the built-in variants");
  }
  p.lifetime_last_ms = probe_lifetime_last_ms(p.cfg.variant, p.cfg.layout, p.cfg.policy);
  if (p.lifetime_last_ms) return;
  if (!p.variant.time_based) {
    throw NotApplicable(fmt::format("variant {} has no timestamp to exhaust", p.cfg.variant));
  }
  throw NotApplicable(fmt::format(
      "variant {} does not run out before {}, the last instant idbench's Clock can "
      "express (int64 ns since 1970): its end cannot be reached through the clock seam",
      p.cfg.variant, format_utc_ms(kClockLastMs)));
}

}  // namespace

RunPlan plan_run(const RunConfig& cfg) {
  RunPlan p;
  p.cfg = cfg;
  const Scenario& s = scenario_named(cfg.scenario);
  check_rate_and_scale(cfg.rate, cfg.time_scale);
  p.scenario = scaled(s, cfg.time_scale);
  p.variant = resolve_variant(cfg);
  if (!cfg.exec) Policy::parse(cfg.policy);  // throws with the list of policies
  const Layout layout = Layout::parse(cfg.layout, plan_true_ms_now());
  if (cfg.nodes < 1 || cfg.nodes > 64) throw Error("--nodes must be 1 … 64");
  if (cfg.threads < 1 || cfg.threads > 64) throw Error("--threads must be 1 … 64");
  if (p.scenario.same_node_id && cfg.nodes < 2) {
    throw Error(fmt::format("scenario {} needs at least 2 nodes", p.scenario.name));
  }
  assign_node_ids(p, layout);
  if (p.scenario.base == ClockBase::lifetime_end_at) probe_lifetime(p);
  return p;
}

std::vector<std::string> RunPlan::generator_args() const {
  if (!cfg.exec) return {"--variant", cfg.variant};
  // The width the description implies (exec_variant), so that a program printing the other
  // one is refused at its first ID, as `generate` refuses it.
  external::ExecSpec e = *cfg.exec;
  e.width = variant.width;
  return external::exec_flags(e);
}

std::int64_t RunPlan::skew_ns(int k) const {
  if (scenario.skew_ms == 0 || cfg.nodes < 2) return 0;
  const double share = static_cast<double>(k) / (cfg.nodes - 1);
  return static_cast<std::int64_t>((-1.0 + 2.0 * share) * scenario.skew_ms * 1e6);
}

std::int64_t RunPlan::reference_offset(std::int64_t start_true_ns) const {
  const std::int64_t at_true = start_true_ns + scenario.base_at_ms * 1'000'000;
  switch (scenario.base) {
    case ClockBase::true_time:
      return 0;
    case ClockBase::absolute_at:
      return scenario.base_unix_ms * 1'000'000 - at_true;
    case ClockBase::lifetime_end_at:
      return (*lifetime_last_ms + 1) * 1'000'000 - at_true;
  }
  return 0;
}

void check_marks(const RunPlan& plan) {
  for (const std::uint64_t id : plan.node_ids) {
    HighWaterMark(mark_path(plan.cfg.persist_dir, id)).load();
  }
}

JudgeSetup judge_setup(const RunPlan& plan, std::int64_t start_true_ns,
                       const std::vector<LoggedEvent>& events) {
  const RunConfig& cfg = plan.cfg;
  const Scenario& sc = plan.scenario;
  // An external program promises unique IDs, across its restarts too: how it keeps that
  // promise (a policy, a persisted state) is its own business, and a duplicate breaks it.
  JudgeSetup s{.policy = cfg.exec ? std::string(kPromisesUniqueness) : cfg.policy,
               .persist = cfg.exec || !cfg.persist_dir.empty(),
               .program = cfg.exec.has_value(),
               .nodes = cfg.nodes,
               .threads = cfg.threads,
               .steps_back = sc.steps_back,
               .restarts = sc.restarts,
               .same_node_id = sc.same_node_id,
               .exhausts = sc.exhausts,
               .node_field = plan.variant.uses_layout,
               .random_bits = plan.variant.width == IdWidth::bits128,
               .lifetime_last_unix_ms = plan.lifetime_last_ms,
               .start_true_ns = start_true_ns,
               .faults = {}};
  for (const LoggedEvent& e : events) {
    if (e.kind != "note") s.faults.push_back({e.true_ns, e.what});
  }
  return s;
}

RunFacts plan_facts(const RunPlan& plan) {
  RunFacts f;
  const Variant& v = plan.variant;
  f.width = v.width;
  f.program = plan.cfg.exec.has_value();
  f.ids_per_request = plan.cfg.exec ? plan.cfg.exec->batch : 1;
  f.id_time = v.id_time;
  if (v.id_time == IdTime::layout) f.layout = Layout::parse(plan.cfg.layout, plan_true_ms_now());
  f.id_time_resolution_ms = v.id_time == IdTime::ksuid || v.id_time == IdTime::xid ? 1000
                            : f.layout                 ? f.layout->unit_ms()
                                                       : 1;
  return f;
}

// Both written so that NaN fails every comparison and lands in the problem.
std::string rate_problem(double rate) {
  if (rate == 0 || (rate >= kMinRate && rate <= kMaxRate)) return "";
  return fmt::format("must be 0 (flat out) or {:g} … {:g} IDs/s per node, not {}", kMinRate,
                     kMaxRate, rate);
}

std::string time_scale_problem(double time_scale) {
  if (time_scale >= kMinTimeScale && time_scale <= kMaxTimeScale) return "";
  return fmt::format("must be {:g} … {:g}, not {}", kMinTimeScale, kMaxTimeScale, time_scale);
}

void check_rate_and_scale(double rate, double time_scale) {
  if (const std::string p = rate_problem(rate); !p.empty()) throw Error("--rate " + p);
  if (const std::string p = time_scale_problem(time_scale); !p.empty()) {
    throw Error("--time-scale " + p);
  }
}

std::optional<std::int64_t> probe_lifetime_last_ms(const std::string& variant,
                                                   const std::string& layout,
                                                   const std::string& policy) {
  const std::int64_t now_ms = plan_true_ms_now();
  const auto exhausted_at = [&](std::int64_t unix_ms) {
    GeneratorOptions opts;
    opts.layout = Layout::parse(layout, now_ms);
    opts.policy = Policy::parse(policy);
    opts.clock = std::make_shared<ManualClock>(unix_ms * 1'000'000);
    auto gen = make_generator(variant, opts);
    try {
      gen->next();
      return false;
    } catch (const EpochExhausted&) {
      return true;
    } catch (const ClockError&) {
      return false;
    }
  };
  std::int64_t lo = now_ms;
  std::int64_t hi = kClockLastMs;
  if (exhausted_at(lo) || !exhausted_at(hi)) return std::nullopt;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (exhausted_at(mid) ? hi : lo) = mid;
  }
  return lo;
}

}  // namespace idbench::chaos
