// vdso_fuzz.cpp — fuzz target for the vDSO reader and the prologue relocator (inject/vdso.hpp),
// which read bytes from another process's memory.
//
// Properties: the input as a vDSO image is either refused (inject::Refusal, one clean line) or
// gives three entry points inside the image; each entry's prologue, and the input itself as a
// prologue, is either refused or relocated to a copy that verify_relocation accepts, at a near
// address and at one 1 GiB away; never another exception, a crash or undefined behaviour.
#include <algorithm>
#include <cstdint>
#include <span>

#include "fuzz/fuzz_support.hpp"
#include "inject/vdso.hpp"

namespace idbench::fuzz {
namespace {

// Where a vDSO sits in a typical x86-64 process, and two places a trampoline may go.
constexpr std::uint64_t kFrom = 0x7ffd'1234'5000;
constexpr std::uint64_t kNear = kFrom - 0x10'0000;
constexpr std::uint64_t kFar = kFrom - (std::uint64_t{1} << 30);

void check_prologue(std::string_view name, std::span<const std::uint8_t> code) {
  for (const std::uint64_t at : {kNear, kFar}) {
    inject::RelocatedPrologue copy;
    if (!expect_typed<inject::Refusal>("relocate_prologue", [&] {
          copy = inject::relocate_prologue(name, code, kFrom, at);
        })) {
      continue;
    }
    require(copy.displaced >= inject::kJumpLength && copy.displaced <= code.size(),
            "{}: {} bytes displaced of {}", name, copy.displaced, code.size());
    require(copy.code.size() <= inject::kMaxRelocatedLength, "{}: a copy of {} bytes", name,
            copy.code.size());
    const bool verified = expect_typed<Error>(
        "verify_relocation", [&] { inject::verify_relocation(name, code, kFrom, copy, at); });
    require(verified, "{}: relocate_prologue made a copy verify_relocation refuses", name);
  }
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::span<const std::uint8_t> bytes(input.data, input.size);
  check_prologue("input", bytes);
  inject::VdsoEntries entries;
  if (!expect_typed<inject::Refusal>("find_vdso_entries",
                                     [&] { entries = inject::find_vdso_entries(bytes); })) {
    return;
  }
  for (const inject::VdsoFunction& f : entries) {
    require(f.offset < bytes.size(), "{} at offset {} of a {}-byte image", f.name, f.offset,
            bytes.size());
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(f.size, bytes.size() - f.offset));
    check_prologue(f.name, bytes.subspan(static_cast<std::size_t>(f.offset), length));
  }
}

}  // namespace idbench::fuzz
