// high_water_mark_fuzz.cpp — fuzz target for reading a persisted high-water mark
// (chaos/high_water_mark.hpp, HighWaterMark::load): the file's bytes are the input.
//
// Properties: a rejection is a HighWaterMarkError with one clean line (a corrupt mark must not
// dump its bytes to the terminal). An accepted file is exactly one decimal number and a
// newline at most — nothing cut off, nothing around it — and the value it gave is what store()
// writes back for it, which loads again as the same value.
#include <charconv>
#include <optional>

#include "chaos/high_water_mark.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

// The value of `text` when it is one decimal int64 and an optional newline, else nullopt.
std::optional<std::int64_t> oracle(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  std::optional<std::int64_t> mark;
  if (!expect_typed<chaos::HighWaterMarkError>(
          "HighWaterMark::load", [&] { mark = chaos::HighWaterMark(input.file()).load(); })) {
    return;
  }
  require(mark.has_value(), "an existing mark file loads as absent");
  const auto expected = oracle(text);
  require(expected == mark, "mark file {} loads as {}", one_line(text), *mark);
  // store() writes fmt "{}\n"; that text must load as the same mark.
  std::optional<std::int64_t> back;
  const std::string stored = fmt::format("{}\n", *mark);
  const bool ok = expect_typed<chaos::HighWaterMarkError>("HighWaterMark::load (stored form)", [&] {
    back = chaos::HighWaterMark(echo_file(stored)).load();
  });
  require(ok && back == mark, "mark {} does not round-trip through its stored form", *mark);
}

}  // namespace idbench::fuzz
