// keys_file.hpp — a file of keys in arrival order, read into a KeyStream (`locality --keys`).
//
// One key per line: decimal for 64-bit keys, 32 hex digits or a canonical UUID for 128-bit
// keys; the first key decides the width. Trailing spaces and a CR are ignored, empty lines
// skipped. Every rejection is one line naming `file:line` and showing the line escaped and
// shortened, so a binary file never reaches the terminal raw.
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>

#include "bench/locality/key_stream.hpp"

namespace idbench::locality {

// At most `rows` keys. Throws idbench::Error: unreadable, a directory, no keys, a bad line.
KeyStream read_keys_file(const std::string& path, std::uint64_t rows);

// `line` as a message may show it: non-printable bytes as \xNN, at most 40 characters.
std::string printable_excerpt(std::string_view line);

}  // namespace idbench::locality
