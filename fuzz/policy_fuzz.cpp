// policy_fuzz.cpp — fuzz target for Policy::parse (generators/policy.hpp), `NAME[:BOUND_MS]`.
//
// Properties: a rejection is an idbench::Error with one clean line. An accepted policy has a
// bound >= 0, round-trips through name(), and a generator running it through a backward clock
// step neither overflows (UBSan) nor hangs, and never repeats an ID unless the policy is
// `unsafe`.
#include <optional>
#include <set>

#include "fuzz/fuzz_support.hpp"
#include "generators/clock.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"

namespace idbench::fuzz {
namespace {

void check_round_trip(const Policy& policy) {
  require(policy.bound_ms >= 0, "accepted policy {} has a negative bound", one_line(policy.name()));
  std::optional<Policy> back;
  const bool ok =
      expect_typed("Policy::parse(name())", [&] { back = Policy::parse(policy.name()); });
  require(ok && *back == policy, "policy {} does not round-trip through name()",
          one_line(policy.name()));
}

// Twitter layout, a manual clock: IDs, a 3 ms step back, IDs again. The clock advances 1 ms per
// relax(), so every policy that waits catches up within a few calls.
void check_generator(const Policy& policy) {
  GeneratorOptions options;
  options.policy = policy;
  auto clock =
      std::make_shared<ManualClock>(std::int64_t{1'700'000'000'000} * 1'000'000, 1'000'000);
  options.clock = clock;
  const auto generator = find_variant("mutex")->make(options);
  std::set<std::uint64_t> seen;
  const auto issue = [&] {
    expect_typed<ClockError>("mutex generator", [&] {
      for (int i = 0; i < 4; ++i) {
        const std::uint64_t id = generator->next().lo;
        require(seen.insert(id).second || !policy.promises_uniqueness(),
                "policy {} issued {} twice", one_line(policy.name()), id);
      }
    });
  };
  issue();
  clock->step_wall_ms(-3);
  issue();
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  std::optional<Policy> policy;
  if (!expect_typed("Policy::parse", [&] { policy = Policy::parse(text); })) return;
  check_round_trip(*policy);
  check_generator(*policy);
}

}  // namespace idbench::fuzz
