// comma_list.hpp — a comma-separated list into its words, every word kept (empty ones too, so
// the caller can name an empty entry in its message rather than skip it silently), and a word
// listed twice refused: the caller would otherwise misread the repeat (`real --system x,x`
// said "unknown system 'x'" about a system it knows).
//
//   split_commas("a,b")  → {"a", "b"}
//   split_commas("a,")   → {"a", ""}
//   split_commas("")     → {""}
//   split_commas("a,,a") → {"a", "", "a"}  (an empty entry is named before a repeat)
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

// The first word that stands again later in `words` (the first repeat), or nullptr.
inline const std::string* first_repeat(const std::vector<std::string>& words) {
  for (auto it = words.begin(); it != words.end(); ++it) {
    if (std::find(words.begin(), it, *it) != it) return &*it;
  }
  return nullptr;
}

inline std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> words;
  for (std::size_t from = 0;;) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    words.emplace_back(text.substr(from, comma - from));
    if (comma == text.size()) break;
    from = comma + 1;
  }
  // An empty entry is the caller's to name (it says which list), and comes first: "a,,a" is a
  // list with an empty entry before it is a list with a repeat.
  if (std::find(words.begin(), words.end(), "") != words.end()) return words;
  if (const std::string* twice = first_repeat(words)) {
    throw std::invalid_argument("'" + *twice + "' is listed twice in '" + std::string(text) + "'");
  }
  return words;
}

}  // namespace idbench::plumbing
