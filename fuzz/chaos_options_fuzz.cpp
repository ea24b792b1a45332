// chaos_options_fuzz.cpp — fuzz target for the options of `idbench chaos` (chaos/options.hpp
// and chaos/scenario.hpp): scenario names, --time-scale, --rate, the matrix lists.
//
// Input: the arguments after `idbench chaos`, one per line. They are parsed by the command's
// own option definitions (the ones `idbench chaos` adds), with no command behind them, so
// nothing runs; the values they accepted then go through what a run does with them first:
// find_scenario, scaled, Policy::parse, Layout::parse, find_variant.
// Properties: a rejection (CLI11's ParseError or an idbench::Error) is one clean line; an
// accepted --time-scale or --rate is finite, and a scenario scaled by it keeps a positive
// duration and every event inside it, without overflow.
#include <cmath>
#include <optional>

#include "chaos/options.hpp"
#include "chaos/scenario.hpp"
#include "fuzz/fuzz_support.hpp"
#include "generators/layout.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"

namespace idbench::fuzz {
namespace {

std::vector<std::string> arguments(std::string_view text) {
  std::vector<std::string> args{"idbench", "chaos"};
  while (!text.empty()) {
    const std::size_t nl = std::min(text.find('\n'), text.size());
    args.emplace_back(text.substr(0, nl));
    text.remove_prefix(std::min(nl + 1, text.size()));
  }
  return args;
}

// Thrown by the chaos subcommand's parse-complete callback: the options passed CLI11's checks.
struct Parsed {
  int unused = 0;
};

template <typename T>
std::optional<T> given(CLI::App& cmd, const std::string& name) {
  const CLI::Option* option = cmd.get_option(name);
  if (option->count() == 0) return std::nullopt;
  return option->as<T>();
}

void check_scaled(const chaos::Scenario& s, double factor) {
  require(std::isfinite(factor) && factor > 0, "--time-scale {} accepted", factor);
  // Every time must stay an int64 after scaling, and the run must still last.
  const double longest = static_cast<double>(s.duration_ms) * factor;
  require(longest < 9.0e15, "--time-scale {}: scenario {} would last {} ms", factor, s.name,
          longest);
  const chaos::Scenario out = chaos::scaled(s, factor);
  require(out.duration_ms > 0, "--time-scale {}: scenario {} lasts {} ms", factor, s.name,
          out.duration_ms);
  for (const auto& e : out.events) {
    require(e.at_ms >= 0 && e.at_ms <= out.duration_ms,
            "--time-scale {}: scenario {} has an event at {} ms of {}", factor, s.name, e.at_ms,
            out.duration_ms);
  }
}

void check_names(CLI::App& cmd) {
  if (const auto name = given<std::string>(cmd, "--scenario")) chaos::find_scenario(*name);
  if (const auto name = given<std::string>(cmd, "--variant")) find_variant(*name);
  if (const auto text = given<std::string>(cmd, "--policy")) {
    expect_typed("Policy::parse (--policy)", [&] { Policy::parse(*text); });
  }
  if (const auto text = given<std::string>(cmd, "--layout")) {
    expect_typed<LayoutError>("Layout::parse (--layout)",
                              [&] { Layout::parse(*text, 1'800'000'000'000); });
  }
  if (const auto names = given<std::vector<std::string>>(cmd, "--scenarios")) {
    for (const auto& n : *names) chaos::find_scenario(n);
  }
  if (const auto names = given<std::vector<std::string>>(cmd, "--policies")) {
    for (const auto& n : *names)
      expect_typed("Policy::parse (--policies)", [&] { Policy::parse(n); });
  }
}

void check_accepted(CLI::App& cmd) {
  check_names(cmd);
  if (const auto rate = given<double>(cmd, "--rate")) {
    require(std::isfinite(*rate) && *rate >= 0, "--rate {} accepted", *rate);
  }
  const auto factor = given<double>(cmd, "--time-scale");
  if (!factor) return;
  const auto name = given<std::string>(cmd, "--scenario");
  if (const chaos::Scenario* s = name ? chaos::find_scenario(*name) : nullptr) {
    check_scaled(*s, *factor);
  } else {
    for (const auto& each : chaos::scenarios()) check_scaled(each, *factor);
  }
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::vector<std::string> args = arguments(input.text);
  CLI::App app{"idbench"};
  app.require_subcommand(1);
  chaos::ChaosArgs options;
  CLI::App* cmd = app.add_subcommand("chaos");
  chaos::add_chaos_options(cmd, options);
  // Thrown once the subcommand's options are converted and checked: how an accepted line is
  // told from a refused one.
  cmd->parse_complete_callback([] { throw Parsed{}; });
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  bool accepted = false;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    violation("the chaos options were parsed without their parse-complete callback");
  } catch (const Parsed&) {
    accepted = true;
  } catch (const CLI::ParseError& e) {
    // What the user sees: cli/main.cpp prints CLI11's message through idbench::one_line.
    const std::string seen = idbench::one_line(e.what());
    const std::string defect = message_defect(seen);
    require(defect.empty() || e.get_exit_code() == 0,
            "CLI11 rejected the arguments with a bad message ({}): {}", defect, one_line(seen));
  }
  if (accepted) check_accepted(*cmd);
  return;
}

}  // namespace idbench::fuzz
