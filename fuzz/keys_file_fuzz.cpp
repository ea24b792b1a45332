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
}  // namespace idbench::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace idbench;
  using namespace idbench::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<locality::KeyStream> keys;
  if (!expect_typed("locality::read_keys_file",
                    [&] { keys = locality::read_keys_file(input_file(data, size), kRows); })) {
    return 0;
  }
  require(!keys->keys.empty(), "keys file {} gives an empty stream", shown(text.substr(0, 200)));
  std::string written;
  for (const Id& key : keys->keys) written += to_text(key, keys->width) + "\n";
  std::optional<locality::KeyStream> back;
  const bool ok = expect_typed("locality::read_keys_file (written back)",
                               [&] { back = locality::read_keys_file(echo_file(written), kRows); });
  require(ok && back->width == keys->width && back->keys == keys->keys,
          "keys from {} do not read back from {}", shown(text.substr(0, 200)),
          shown(written.substr(0, 200)));
  return 0;
}
