// comma_list.hpp — a comma-separated list into its words, every word kept (empty ones too, so
// the caller can name an empty entry in its message rather than skip it silently).
//
//   split_commas("a,b")  → {"a", "b"}
//   split_commas("a,")   → {"a", ""}
//   split_commas("")     → {""}
//
// Header-only: the MariaDB adapter (its own small binary) reads its socket list with it too.
// Thread safety: a pure function.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::plumbing {

inline std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> words;
  for (std::size_t from = 0;;) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    words.emplace_back(text.substr(from, comma - from));
    if (comma == text.size()) return words;
    from = comma + 1;
  }
}

}  // namespace idbench::plumbing
