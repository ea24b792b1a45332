// enum_names.hpp — an enum's words kept as one table and read both ways: the value's word
// (every enum's `name_of(E)` is defined from such a table) and the value a word names (the
// parsers of flags and files). One table per enum, so the word a writer prints and the word a
// reader accepts cannot drift apart, as two hand-written switches can.
//
//   enum class Colour { red, dark_blue };
//   inline constexpr std::array<plumbing::Named<Colour>, 2> kColourNames = {{
//       {Colour::red, "red"}, {Colour::dark_blue, "dark-blue"}}};
//   static_assert(plumbing::one_to_one(kColourNames));
//   std::string_view name_of(Colour c) { return plumbing::name_in(kColourNames, c); }
//   plumbing::value_in(kColourNames, "dark-blue");  // Colour::dark_blue
//   plumbing::value_in(kColourNames, "green");      // std::nullopt
//
// A value missing from the table (a number cast to the enum, read from a file) reads as the
// fallback word, "?" unless the caller names another; the compiler no longer checks that a
// table covers every enumerator as it checked a switch, so each table states its size against
// the enum's last enumerator where the values are dense, and `one_to_one` in a static_assert.
//
// Header-only, constexpr; thread safety: pure functions over constant tables.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::plumbing {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

// The word `table` gives `value`, or `otherwise` when it has none.
template <class E, std::size_t N>
constexpr std::string_view name_in(const std::array<Named<E>, N>& table, E value,
                                   std::string_view otherwise = "?") {
  for (const Named<E>& n : table) {
    if (n.value == value) return n.name;
  }
  return otherwise;
}

// The value `table` names `name`, or nullopt for a word it does not know.
template <class E, std::size_t N>
constexpr std::optional<E> value_in(const std::array<Named<E>, N>& table, std::string_view name) {
  for (const Named<E>& n : table) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

// Every word of `table`, in its order: a flag's list of accepted words, or an error message's.
template <class E, std::size_t N>
std::vector<std::string> names_in(const std::array<Named<E>, N>& table) {
  std::vector<std::string> out;
  out.reserve(N);
  for (const Named<E>& n : table) out.emplace_back(n.name);
  return out;
}

// True when no value and no word stands twice in `table`, so both directions are functions.
template <class E, std::size_t N>
constexpr bool one_to_one(const std::array<Named<E>, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = i + 1; j < N; ++j) {
      if (table[i].value == table[j].value || table[i].name == table[j].name) return false;
    }
  }
  return true;
}

}  // namespace idbench::plumbing
