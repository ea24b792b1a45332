// finite_range.hpp — the range check for a floating-point option. CLI::Range alone lets NaN
// through (every comparison with NaN is false), and a NaN duration then runs a whole suite:
// `real-chaos --time-scale nan` ran MariaDB for 5.8 s and judged 6 IDs. This check refuses
// NaN and the infinities first, then applies the range.
//
//   cmd->add_option("--seconds", a.seconds)->check(FiniteRange(0.1, 3600.0));
//
// Thread safety: returns a value; nothing is shared.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace idbench::cli {

inline CLI::Validator FiniteRange(double min, double max) {
  const std::string range = fmt::format("[{} - {}]", min, max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double v = 0;
        if (text.empty() || !CLI::detail::lexical_cast(text, v)) {
          return "Value '" + text + "' is not a number";
        }
        if (!std::isfinite(v)) return "Value " + text + " is not a finite number";
        if (v < min || v > max) return "Value " + text + " not in range " + range;
        return {};
      },
      "FLOAT in " + range, "FINITE_RANGE");
}

}  // namespace idbench::cli
