// keys_file_fuzz.cpp — fuzz target for the keys file `idbench locality --keys` reads
// (bench/locality/key_stream.hpp, build_stream with `keys_file`).
//
// Properties: a rejection is an idbench::Error with one clean line. Accepted keys written back
// one per line with to_text read back as the same width and keys.
#include <optional>

#include "bench/locality/key_stream.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

locality::StreamSpec keys_from(const std::string& path) {
  locality::StreamSpec spec;
  spec.keys_file = path;
  return spec;
}

}  // namespace
}  // namespace idbench::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace idbench;
  using namespace idbench::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<locality::KeyStream> keys;
  if (!expect_typed("locality::build_stream (keys file)",
                    [&] { keys = locality::build_stream(keys_from(input_file(data, size))); })) {
    return 0;
  }
  require(!keys->keys.empty(), "keys file {} gives an empty stream", shown(text.substr(0, 200)));
  std::string written;
  for (const Id& key : keys->keys) written += to_text(key, keys->width) + "\n";
  std::optional<locality::KeyStream> back;
  const bool ok = expect_typed("locality::build_stream (written back)", [&] {
    back = locality::build_stream(keys_from(echo_file(written)));
  });
  require(ok && back->width == keys->width && back->keys == keys->keys,
          "keys from {} do not read back from {}", shown(text.substr(0, 200)),
          shown(written.substr(0, 200)));
  return 0;
}
