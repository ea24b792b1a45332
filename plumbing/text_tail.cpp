// text_tail.cpp — the last lines of a process's output, on one line (see text_tail.hpp).
#include "plumbing/text_tail.hpp"

#include <algorithm>
#include <vector>

namespace idbench::plumbing {
namespace {

constexpr std::string_view kBlank = " \t\r";

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string text_tail(std::string_view text, TailLimits limits) {
  if (limits.lines == 0) return {};
  std::vector<std::string_view> lines;  // the last limits.lines non-blank ones, in order
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find_first_not_of(kBlank);
    if (first == std::string_view::npos) continue;
    line = line.substr(first, line.find_last_not_of(kBlank) + 1 - first);
    if (lines.size() == limits.lines) lines.erase(lines.begin());
    lines.push_back(line);
  }
  std::string out;
  for (const std::string_view line : lines) {
    if (!out.empty()) out += " | ";
    out += line;
  }
  if (out.size() <= limits.chars) return out;
  std::size_t cut = out.size() - limits.chars;
  while (cut < out.size() && utf8_continuation(out[cut])) ++cut;
  return "…" + out.substr(cut);
}

}  // namespace idbench::plumbing
