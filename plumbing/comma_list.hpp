// comma_list.hpp — a comma-separated list into its words, every word kept (empty ones too, so
// the caller can name an empty entry in its message rather than skip it silently), and a word
// listed twice refused: the caller would otherwise misread the repeat (`real --system x,x`
// said "unknown system 'x'" about a system it knows).
//
//   split_commas("a,b")  → {"a", "b"}
//   split_commas("a,")   → {"a", ""}
//   split_commas("")     → {""}
//   split_commas("a,a")  → throws std::invalid_argument("'a' is listed twice in 'a,a'")
//
// Header-only, and so std::invalid_argument rather than idbench::Error: the MariaDB adapter
// (its own small binary, linking no idbench library) reads its socket list with it too.
// Thread safety: a pure function.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::plumbing {

inline std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> words;
  for (std::size_t from = 0;;) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    std::string word(text.substr(from, comma - from));
    if (!word.empty() && std::find(words.begin(), words.end(), word) != words.end()) {
      throw std::invalid_argument("'" + word + "' is listed twice in '" + std::string(text) + "'");
    }
    words.push_back(std::move(word));
    if (comma == text.size()) return words;
    from = comma + 1;
  }
}

}  // namespace idbench::plumbing
