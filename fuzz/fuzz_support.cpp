// fuzz_support.cpp — violation reports, the one-line message rule, memfd input files.
#include "fuzz/fuzz_support.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace idbench::fuzz {
namespace {

// The length of the UTF-8 sequence starting at `s[i]` and its code point, or 0 when invalid.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    code = lead;
    return 1;
  }
  std::size_t len = 0;
  std::uint32_t min = 0;
  if ((lead & 0xe0) == 0xc0) {
    len = 2, min = 0x80, code = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    len = 3, min = 0x800, code = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    len = 4, min = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = code << 6 | (byte(i + k) & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return len;
}

int make_memfd(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  return fd;
}

const std::string& rewrite(int fd, const std::string& path, const void* data, std::size_t size) {
  if (::ftruncate(fd, 0) != 0 ||
      (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    std::perror("memfd write");
    std::abort();
  }
  return path;
}

}  // namespace

std::string message_defect(std::string_view message) {
  static const bool ignored = std::getenv("IDBENCH_FUZZ_IGNORE_MESSAGES") != nullptr;
  if (ignored) return {};
  if (message.empty()) return "empty";
  for (std::size_t i = 0; i < message.size();) {
    std::uint32_t code = 0;
    const std::size_t len = utf8_sequence(message, i, code);
    if (len == 0) return fmt::format("invalid UTF-8 at byte {}", i);
    if (code == '\n') return fmt::format("a newline at byte {}", i);
    if (code < 0x20 || code == 0x7f || (code >= 0x80 && code < 0xa0)) {
      return fmt::format("control character U+{:04X} at byte {}", code, i);
    }
    i += len;
  }
  return {};
}

void violation(std::string_view what) {
  fmt::print(stderr, "\nFUZZ PROPERTY VIOLATED: {}\n", what);
  std::fflush(stderr);
  std::abort();
}

const std::string& Input::file() const { return input_file(data, size); }

const std::string& input_file(const std::uint8_t* data, std::size_t size) {
  static const int fd = make_memfd("idbench-fuzz-input");
  static const std::string path = fmt::format("/proc/self/fd/{}", fd);
  return rewrite(fd, path, data, size);
}

const std::string& echo_file(std::string_view contents) {
  static const int fd = make_memfd("idbench-fuzz-echo");
  static const std::string path = fmt::format("/proc/self/fd/{}", fd);
  return rewrite(fd, path, contents.data(), contents.size());
}

}  // namespace idbench::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const idbench::fuzz::Input input{data, size, {reinterpret_cast<const char*>(data), size}};
  idbench::fuzz::fuzz_one(input);
  return 0;
}
