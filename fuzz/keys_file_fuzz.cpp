// keys_file_fuzz.cpp — fuzz target for the keys file `idbench locality --keys` reads
// (bench/locality/keys_file.hpp, read_keys_file).
//
// Properties: a rejection is an idbench::Error with one clean line. Accepted keys written back
// one per line with to_text read back as the same width and keys.
#include <optional>

#include "bench/locality/keys_file.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

constexpr std::uint64_t kRows = 1 << 20;  // more lines than a fuzz input holds

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  std::optional<locality::KeyStream> keys;
  if (!expect_typed("locality::read_keys_file",
                    [&] { keys = locality::read_keys_file(input.file(), kRows); })) {
    return;
  }
  require(!keys->keys.empty(), "keys file {} gives an empty stream", one_line(text.substr(0, 200)));
  std::string written;
  for (const Id& key : keys->keys) written += to_text(key, keys->width) + "\n";
  std::optional<locality::KeyStream> back;
  const bool ok = expect_typed("locality::read_keys_file (written back)",
                               [&] { back = locality::read_keys_file(echo_file(written), kRows); });
  require(ok && back->width == keys->width && back->keys == keys->keys,
          "keys from {} do not read back from {}", one_line(text.substr(0, 200)),
          one_line(written.substr(0, 200)));
}

}  // namespace idbench::fuzz
