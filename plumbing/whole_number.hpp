// whole_number.hpp — the check for an unsigned integer option. CLI11 converts one with
// strtoull, which reads "-1" as 18446744073709551615 (and " 12" or "0x10" as numbers):
// `locality --rows -1` was refused as "must be at most 100000000", `--pool-pages -1` ran with
// a pool of 18446744073709551615 pages and `check --max-memory -1` without a budget. This
// check takes decimal digits only and says what is wrong with anything else.
//
//   cmd->add_option("--rows", a.rows)->check(WholeNumber(1));
//   cmd->add_option("--batch", a.batch)->check(WholeNumber(1, 1'000'000));
//
// Thread safety: returns a value; nothing is shared.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace idbench::plumbing {

inline CLI::Validator WholeNumber(std::uint64_t min,
                                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == text.npos;
        const std::string want = fmt::format("it must be a whole number ≥ {}", min);
        if (text.starts_with('-') && text.size() > 1) return text + " is negative; " + want;
        if (!digits) return fmt::format("'{}' is not a number; {} (digits only)", text, want);
        if (ec == std::errc::result_out_of_range || v > max) {
          return fmt::format("{} is too large; it must be at most {}", text, max);
        }
        if (v < min) return text + " is too small; " + want;
        (void)end;
        return {};
      },
      max == std::numeric_limits<std::uint64_t>::max() ? fmt::format("UINT ≥ {}", min)
                                                       : fmt::format("UINT in [{} - {}]", min, max),
      "WHOLE_NUMBER");
}

}  // namespace idbench::plumbing
