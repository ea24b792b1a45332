// fuzz_support.hpp — the properties every fuzz target checks, and the input plumbing they share.
//
//   expect_typed<LayoutError>("Layout::parse", [&] { layout = Layout::parse(text, now); });
//   require(back == layout, "spec() does not round-trip: {}", one_line(layout.spec()));
//   const std::string& path = input_file(data, size);   // /proc/self/fd/N of a memfd
//
// A rejection must be the parser's typed error (an idbench::Error subclass) whose message is one
// printable line: not empty, no '\n', no control bytes (C0, DEL, C1) and valid UTF-8, so that a
// hostile input is never echoed raw to a terminal. Anything else — another exception, a broken
// property — is reported on stderr with the input escaped, then abort(): libFuzzer records the
// input as a crash, and a corpus replay fails. IDBENCH_FUZZ_IGNORE_MESSAGES=1 in the environment
// skips the one-line rule, to look past a known message defect for deeper ones.
//
// Each target defines only `fuzz_one(const Input&)`; fuzz_support.cpp holds libFuzzer's entry
// point, which wraps the bytes and calls it.
//
// Thread safety: single-threaded, as libFuzzer calls a target.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "generators/errors.hpp"

namespace idbench::fuzz {

// Why `message` is not one clean line, or empty when it is.
std::string message_defect(std::string_view message);

[[noreturn]] void violation(std::string_view what);

template <typename... Args>
void require(bool ok, fmt::format_string<Args...> format, Args&&... args) {
  if (!ok) violation(fmt::format(format, std::forward<Args>(args)...));
}

// Runs `parse`; a thrown `Expected` must carry a clean one-line message; any other exception is
// a violation. Returns true when `parse` returned normally (the input was accepted).
template <typename Expected = Error, typename Parse>
bool expect_typed(std::string_view where, Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const Expected& e) {
    const std::string defect = message_defect(e.what());
    require(defect.empty(), "{} rejected the input with a bad message ({}): {}", where, defect,
            one_line(e.what()));
    return false;
  } catch (const std::exception& e) {
    violation(fmt::format("{} threw {} instead of {}: {}", where, typeid(e).name(),
                          typeid(Expected).name(), one_line(e.what())));
  }
}

// One fuzz input: its bytes as text; `file()` writes them to input_file() (below).
struct Input {
  const std::uint8_t* data;
  std::size_t size;
  std::string_view text;
  const std::string& file() const;
};

// The target's property check, defined once per target.
void fuzz_one(const Input& input);

// The input as a file: one memfd per process, rewritten for every input, opened by path as
// /proc/self/fd/N. Nothing is left on disk, even when the fuzzer is killed.
const std::string& input_file(const std::uint8_t* data, std::size_t size);
// A second such file, for writing an accepted input back and reading it again.
const std::string& echo_file(std::string_view contents);

}  // namespace idbench::fuzz
