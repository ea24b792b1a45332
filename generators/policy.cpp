// policy.cpp — the policy catalog and the text form NAME[:BOUND_MS].
#include "generators/policy.hpp"

#include <fmt/format.h>

#include <charconv>

#include "generators/errors.hpp"

namespace idbench {
namespace {

// A bound is measured in ns on the steady clock (bound × 10^6 must fit int64); a day is far
// beyond any useful wait or borrow.
constexpr std::int64_t kMaxBoundMs = 86'400'000;

constexpr PolicyInfo kPolicies[] = {
    {PolicyKind::refuse, "refuse", 0, "throw 'clock moved backwards: refusing for N ms'"},
    {PolicyKind::wait, "wait", 0, "spin until the clock passes the last issued tick"},
    {PolicyKind::bounded_wait, "bounded-wait", 5,
     "wait up to the bound (default 5 ms, as Meituan Leaf), then fail"},
    {PolicyKind::borrow, "borrow", 1000,
     "keep the last tick, advance the sequence, move ahead on overflow up to the bound "
     "(default 1000 ms) ahead of the clock; fail if the clock is behind by more"},
    {PolicyKind::unsafe, "unsafe", 0,
     "reset the sequence and carry on: duplicates after a backward step (a planted defect)"},
    {PolicyKind::clock_sequence, "clock-sequence", 0,
     "DCE 1994: change the clock sequence (a layout's gen bits) and issue at the clock's time; "
     "wait only when the generations run out"},
};

const PolicyInfo& info(PolicyKind kind) {
  for (const auto& p : kPolicies) {
    if (p.kind == kind) return p;
  }
  return kPolicies[0];
}

}  // namespace

std::span<const PolicyInfo> policy_catalog() { return kPolicies; }

Policy Policy::of(PolicyKind kind) { return Policy{kind, info(kind).default_bound_ms}; }

Policy Policy::parse(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  for (const auto& p : kPolicies) {
    if (name != p.name) continue;
    Policy policy = of(p.kind);
    if (colon == std::string_view::npos) return policy;
    if (p.default_bound_ms == 0) {
      throw Error(fmt::format("policy '{}' takes no bound", name));
    }
    const std::string_view bound = text.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(bound.data(), bound.data() + bound.size(), policy.bound_ms);
    const bool too_long = ec == std::errc::result_out_of_range ||
                          (ec == std::errc{} && policy.bound_ms > kMaxBoundMs);
    if (too_long) {
      throw Error(fmt::format("policy '{}': bound {} ms is too long; at most {} (a day)", name,
                              bound, kMaxBoundMs));
    }
    if (ec != std::errc{} || ptr != bound.data() + bound.size() || policy.bound_ms < 0) {
      throw Error(fmt::format("policy '{}': bound '{}' is not a number of ms", name, bound));
    }
    return policy;
  }
  std::string names;
  for (const auto& p : kPolicies) names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
  throw Error(
      fmt::format("unknown policy '{}'; one of: {} (optionally NAME:BOUND_MS)", text, names));
}

std::string Policy::name() const {
  const PolicyInfo& p = info(kind);
  if (p.default_bound_ms == 0 || bound_ms == p.default_bound_ms) return std::string(p.name);
  return fmt::format("{}:{}", p.name, bound_ms);
}

}  // namespace idbench
