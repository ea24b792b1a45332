// stderr_capture.cpp — a program's stderr appended to a file, and read back (stderr_capture.hpp).
#include "external/stderr_capture.hpp"

#include <charconv>
#include <sstream>

#include "plumbing/child_process.hpp"

namespace idbench::external {
namespace {

// A word as split_command() reads it back.
// (Strings here are appended piece by piece: g++ 12 -O3 warns falsely on "x" + s, -Wrestrict.)
std::string quote_word(const std::string& w) {
  const bool plain = w.find('\'') == std::string::npos;
  const char quote = plain ? '\'' : '"';
  std::string q(1, quote);
  for (char c : w) {
    if (!plain && (c == '"' || c == '\\')) q.push_back('\\');
    q.push_back(c);
  }
  q.push_back(quote);
  return q;
}

}  // namespace

ExecSpec capturing_stderr(const ExecSpec& spec, const std::string& path) {
  ExecSpec wrapped = spec;
  wrapped.command = "sh -c 'exec 2>>\"$0\"; exec \"$@\"' ";
  wrapped.command.append(quote_word(path));
  for (const std::string& w : split_command(spec.command)) {
    wrapped.command.push_back(' ');
    wrapped.command.append(quote_word(w));
  }
  return wrapped;
}

std::string unwrapped(std::string message, const std::string& wrapped, const std::string& given) {
  for (auto at = message.find(wrapped); at != std::string::npos;
       at = message.find(wrapped, at + given.size())) {
    message.replace(at, wrapped.size(), given);
  }
  return message;
}

void read_captured_stderr(const std::string& path, CapturedStderr& into) {
  std::istringstream in(plumbing::read_text_file(path));
  for (std::string line; std::getline(in, line);) {
    if (auto c = parse_counter_line(line)) {
      if (!into.counters) into.counters.emplace();
      for (const auto& [k, v] : *c) (*into.counters)[k] += v;
    } else if (!line.empty() && into.lines.size() < CapturedStderr::kMaxLines) {
      into.lines.push_back(line);
    }
  }
}

std::optional<Counters> parse_counter_line(const std::string& line) {
  const auto colon = line.find(": ");
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  if (line.find_first_of(" \t") < colon) return std::nullopt;  // a name is one word
  Counters out;
  std::istringstream words(line.substr(colon + 2));
  for (std::string w; words >> w;) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.size()) return std::nullopt;
    std::uint64_t v = 0;
    const char* b = w.data() + eq + 1;
    const char* e = w.data() + w.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e) return std::nullopt;
    out[w.substr(0, eq)] = v;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace idbench::external
