// exec_command_fuzz.cpp — `--exec` command splitting (external::split_command): a rejection is
// a typed one-line Error; an accepted command has words, and writing them back quoted (every
// word in '…', a ' as '\'' ) splits to the same words.
#include "external/program.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

// `word` as one shell-style word in single quotes.
std::string single_quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\"'\"'";  // close, a double-quoted ', reopen
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

void fuzz_one(const Input& input) {
  std::vector<std::string> words;
  if (!expect_typed("split_command", [&] { words = external::split_command(input.text); })) {
    return;
  }
  require(!words.empty(), "split_command accepted {} with no words", one_line(input.text));
  std::string written;
  for (const std::string& w : words) written += single_quoted(w) + " ";
  std::vector<std::string> back;
  const bool ok = expect_typed("split_command (written back)",
                               [&] { back = external::split_command(written); });
  require(ok && back == words, "the words of {} do not split back from {}", one_line(input.text),
          one_line(written));
}

}  // namespace idbench::fuzz
