// error.hpp — idbench::Error, the base of everything idbench throws on purpose, and one_line(),
// which keeps every message one printable line. In plumbing, the lowest layer, so that every
// layer (plumbing itself included) throws the one base type the CLI catches and prints.
//
// Thread safety: pure functions and an immutable exception type.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace idbench {

// Base of everything idbench throws on purpose; `what()` is a message for a person.
// The message is always one printable line: control bytes, a newline and bytes that are not
// UTF-8 (an echoed hostile input) are shown escaped (`\n`, `\x03`), see `one_line()`.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what);
  explicit Error(const char* what) : Error(std::string(what)) {}
};

// What idbench will not do rather than do it wrongly, before a run begins: fake the clock of a
// process it may not trace or whose vDSO it does not recognise (exit 3, as a refusal is).
class Refused : public Error {
 public:
  using Error::Error;
};

// `text` as one printable line: valid UTF-8 kept, every control byte (and DEL) and every byte
// that is not part of a valid UTF-8 sequence written as `\n`, `\r`, `\t` or `\xNN`.
std::string one_line(std::string_view text);

}  // namespace idbench
