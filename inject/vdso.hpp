// vdso.hpp — reading an x86-64 vDSO image and relocating the first instructions of its clock
// functions, on bytes only (no process): where `clock_gettime`, `gettimeofday` and `time` are,
// and a copy of each one's prologue that runs elsewhere and jumps back, so that the prologue's
// bytes can be overwritten by a jump to the trampoline (trampoline.c).
//
// A refusal, never a guess: a prologue is relocated only when every instruction it is made of is
// on a short whitelist (push reg, mov rbp,rsp, endbr64, and/sub rsp,imm8, lea reg,[rip+disp32],
// cmp dword [rip+disp32],imm32: what x86-64 kernels' vDSOs begin with), when no branch of the
// function can land in the bytes the jump displaces, and when every RIP-relative operand still
// reaches its target from the copy. Anything else is an inject::Refusal naming the function,
// the byte offset and the bytes.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/error.hpp"

namespace idbench::inject {

// A process, or a vDSO, that idbench may not or does not know how to fake the clock of: it does
// not exist, it is not an x86-64 program, the kernel refuses to let it be traced (EPERM:
// another tracer, or no permission), or its vDSO is not one idbench recognises. It is left
// alone, and idbench-inject exits 3.
class Refusal : public Refused {
 public:
  using Refused::Refused;
};

// Throws Refusal unless `header` starts a 64-bit little-endian x86-64 ELF file; `what` names
// it in the message ("/proc/42/exe").
void require_x86_64_elf(std::span<const std::uint8_t> header, const std::string& what);

// One clock entry point of a vDSO: its symbol's name, its offset in the image, its size.
struct VdsoFunction {
  std::string name;  // "clock_gettime", "gettimeofday", "time"
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// The three entry points, in this order: clock_gettime, gettimeofday, time.
using VdsoEntries = std::array<VdsoFunction, 3>;

// Finds them through the image's .dynsym and .dynstr (the `__vdso_` names, which must agree with
// their unprefixed aliases when both exist). Throws Refusal when the image is not an x86-64
// ELF, lacks one of them, or is malformed.
VdsoEntries find_vdso_entries(std::span<const std::uint8_t> image);

// The offset of the first `syscall` instruction's bytes (0f 05) in the image, for injecting
// system calls; throws Refusal when there is none.
std::uint64_t find_syscall_instruction(std::span<const std::uint8_t> image);

inline constexpr std::size_t kJumpLength = 5;  // jmp rel32

// A prologue's relocated copy: its first `displaced` bytes (whole instructions, at least
// kJumpLength) re-encoded to run at another address, then a jmp rel32 back to the first
// instruction not displaced.
struct RelocatedPrologue {
  std::size_t displaced = 0;
  std::vector<std::uint8_t> code;
};

// The longest `code` relocate_prologue makes: four instructions of at most 15 bytes, a jump.
inline constexpr std::size_t kMaxRelocatedLength = 4 * 15 + kJumpLength;

// Relocates the prologue of `function` (its bytes: `code`, the whole function, found at address
// `from`) to run at address `at`. Throws Refusal when an instruction is not on the whitelist,
// when a RIP-relative operand or the jump back would be out of ±2 GiB, or when a branch in
// `code` could land inside the displaced bytes.
RelocatedPrologue relocate_prologue(std::string_view function, std::span<const std::uint8_t> code,
                                    std::uint64_t from, std::uint64_t at);

// Checks a relocated copy against the original: instruction by instruction the same bytes, each
// RIP-relative operand reaching the same address from `at` as from `from`, and a jump back to
// `from + displaced`. Throws idbench::Error naming the first difference.
void verify_relocation(std::string_view function, std::span<const std::uint8_t> code,
                       std::uint64_t from, const RelocatedPrologue& copy, std::uint64_t at);

// `length` bytes (at least kJumpLength) for an entry point at `from`: jmp rel32 to `to`, then
// int3 up to the end of the displaced instructions. Throws Refusal when `to` is out of range.
std::vector<std::uint8_t> entry_jump(std::uint64_t from, std::uint64_t to, std::size_t length);

// "0f 05 c3" for a message.
std::string hex_bytes(std::span<const std::uint8_t> bytes);

}  // namespace idbench::inject
