// vdso.cpp — finding a vDSO's clock entry points and relocating their prologues (vdso.hpp).
#include "inject/vdso.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <optional>

namespace idbench::inject {

namespace {

constexpr std::int64_t kRel32Min = INT32_MIN;
constexpr std::int64_t kRel32Max = INT32_MAX;

// A little-endian value at `at` in `bytes`, or a Refusal naming `what` when it is not there.
template <class T>
T load(std::span<const std::uint8_t> bytes, std::uint64_t at, std::string_view what) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T)) {
    throw Refusal(
        fmt::format("the vDSO image is malformed: {} at byte {} is past its end", what, at));
  }
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// The image offset of virtual address `vaddr`, through the PT_LOAD segment that holds it.
std::uint64_t image_offset(std::span<const std::uint8_t> image, const Elf64_Ehdr& eh,
                           std::uint64_t vaddr) {
  for (std::uint64_t i = 0; i < eh.e_phnum; ++i) {
    const auto ph =
        load<Elf64_Phdr>(image, eh.e_phoff + i * sizeof(Elf64_Phdr), "a program header");
    if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
      return vaddr - ph.p_vaddr + ph.p_offset;
    }
  }
  throw Refusal(fmt::format("the vDSO image is malformed: address {:#x} is in no segment", vaddr));
}

struct DynamicSymbols {
  std::uint64_t symbols = 0;  // image offsets of .dynsym and .dynstr
  std::uint64_t count = 0;
  std::uint64_t strings = 0;
  std::uint64_t strings_size = 0;
};

DynamicSymbols dynamic_symbols(std::span<const std::uint8_t> image, const Elf64_Ehdr& eh) {
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) {
    throw Refusal("the vDSO image has no section headers idbench can read");
  }
  for (std::uint64_t i = 0; i < eh.e_shnum; ++i) {
    const auto sh =
        load<Elf64_Shdr>(image, eh.e_shoff + i * sizeof(Elf64_Shdr), "a section header");
    if (sh.sh_type != SHT_DYNSYM) continue;
    const auto str =
        load<Elf64_Shdr>(image, eh.e_shoff + std::uint64_t{sh.sh_link} * sizeof(Elf64_Shdr),
                         "the string table's section header");
    if (sh.sh_entsize != sizeof(Elf64_Sym) || str.sh_type != SHT_STRTAB) {
      throw Refusal("the vDSO image is malformed: its .dynsym or .dynstr is not one");
    }
    return {sh.sh_offset, sh.sh_size / sizeof(Elf64_Sym), str.sh_offset, str.sh_size};
  }
  throw Refusal("the vDSO image has no .dynsym");
}

std::string_view symbol_name(std::span<const std::uint8_t> image, const DynamicSymbols& d,
                             std::uint32_t name) {
  if (name >= d.strings_size || d.strings + d.strings_size > image.size()) return {};
  const char* begin = reinterpret_cast<const char*>(image.data() + d.strings + name);
  const std::size_t room = d.strings_size - name;
  return {begin, strnlen(begin, room)};
}

// The function symbol `name`, if the image defines it.
std::optional<VdsoFunction> find_function(std::span<const std::uint8_t> image, const Elf64_Ehdr& eh,
                                          const DynamicSymbols& d, std::string_view name) {
  for (std::uint64_t i = 0; i < d.count; ++i) {
    const auto sym = load<Elf64_Sym>(image, d.symbols + i * sizeof(Elf64_Sym), "a symbol");
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
    if (symbol_name(image, d, sym.st_name) != name) continue;
    const std::uint64_t offset = image_offset(image, eh, sym.st_value);
    if (sym.st_size < kJumpLength || offset + sym.st_size > image.size()) {
      throw Refusal(
          fmt::format("the vDSO's {} is {} bytes at {:#x}, past the image or too short "
                      "to patch",
                      name, sym.st_size, offset));
    }
    return VdsoFunction{std::string(name), offset, sym.st_size};
  }
  return std::nullopt;
}

}  // namespace

void require_x86_64_elf(std::span<const std::uint8_t> header, const std::string& what) {
  if (header.size() < EI_NIDENT || std::memcmp(header.data(), ELFMAG, SELFMAG) != 0) {
    throw Refusal(fmt::format("{} is not an ELF file", what));
  }
  if (header[EI_CLASS] != ELFCLASS64 || header[EI_DATA] != ELFDATA2LSB) {
    throw Refusal(
        fmt::format("{} is a 32-bit or big-endian program: idbench fakes the clock of "
                    "x86-64 programs only",
                    what));
  }
  if (header.size() < sizeof(Elf64_Ehdr)) {
    throw Refusal(fmt::format("{} has a truncated ELF header", what));
  }
  const auto machine = load<std::uint16_t>(header, offsetof(Elf64_Ehdr, e_machine), "e_machine");
  if (machine != EM_X86_64) {
    throw Refusal(
        fmt::format("{} is a program for machine {} (ELF e_machine): idbench fakes the "
                    "clock of x86-64 programs only",
                    what, machine));
  }
}

VdsoEntries find_vdso_entries(std::span<const std::uint8_t> image) {
  require_x86_64_elf(image, "the vDSO image");
  const auto eh = load<Elf64_Ehdr>(image, 0, "the ELF header");
  const DynamicSymbols d = dynamic_symbols(image, eh);
  VdsoEntries entries;
  const std::array<std::string_view, 3> names{"clock_gettime", "gettimeofday", "time"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto prefixed = find_function(image, eh, d, fmt::format("__vdso_{}", names[i]));
    const auto alias = find_function(image, eh, d, names[i]);
    if (!prefixed && !alias) {
      throw Refusal(fmt::format("the vDSO has no {} (nor __vdso_{})", names[i], names[i]));
    }
    if (prefixed && alias && prefixed->offset != alias->offset) {
      throw Refusal(
          fmt::format("the vDSO's {} ({:#x}) and __vdso_{} ({:#x}) differ: idbench "
                      "patches one entry point per function",
                      names[i], alias->offset, names[i], prefixed->offset));
    }
    entries[i] = prefixed ? *prefixed : *alias;
    entries[i].name = std::string(names[i]);
  }
  return entries;
}

std::uint64_t find_syscall_instruction(std::span<const std::uint8_t> image) {
  const std::array<std::uint8_t, 2> syscall{0x0f, 0x05};
  const auto it = std::search(image.begin(), image.end(), syscall.begin(), syscall.end());
  if (it == image.end()) throw Refusal("the vDSO has no syscall instruction to borrow");
  return static_cast<std::uint64_t>(it - image.begin());
}

std::string hex_bytes(std::span<const std::uint8_t> bytes) {
  std::string text;
  for (const std::uint8_t b : bytes) text += fmt::format("{}{:02x}", text.empty() ? "" : " ", b);
  return text;
}

namespace {

// One whitelisted instruction: its length, and where its disp32 is when it is RIP-relative.
struct Instruction {
  std::size_t length = 0;
  std::size_t disp_at = 0;  // 0: not RIP-relative
};

// The instruction at the start of `b`, if it is on the whitelist (vdso.hpp). Encodings:
//   f3 0f 1e fa         endbr64
//   50+r, 41 50+r       push r64 (r8-r15 with REX.B)
//   48 89 e5, 48 8b ec  mov rbp,rsp
//   48 83 e4 ib         and rsp,imm8
//   48 83 ec ib         sub rsp,imm8
//   48|4c 8d /r         lea r64,[rip+disp32] (ModRM mod=00 rm=101)
//   81 3d d32 id        cmp dword [rip+disp32],imm32
std::optional<Instruction> decode(std::span<const std::uint8_t> b) {
  const auto at = [&](std::size_t i) -> int { return i < b.size() ? b[i] : -1; };
  if (at(0) == 0xf3 && at(1) == 0x0f && at(2) == 0x1e && at(3) == 0xfa) return Instruction{4};
  if (at(0) >= 0x50 && at(0) <= 0x57) return Instruction{1};
  if (at(0) == 0x41 && at(1) >= 0x50 && at(1) <= 0x57) return Instruction{2};
  if (at(0) == 0x48 && ((at(1) == 0x89 && at(2) == 0xe5) || (at(1) == 0x8b && at(2) == 0xec))) {
    return Instruction{3};
  }
  if (at(0) == 0x48 && at(1) == 0x83 && (at(2) == 0xe4 || at(2) == 0xec) && at(3) >= 0) {
    return Instruction{4};
  }
  if ((at(0) == 0x48 || at(0) == 0x4c) && at(1) == 0x8d && at(2) >= 0 && (at(2) & 0xc7) == 0x05 &&
      b.size() >= 7) {
    return Instruction{7, 3};
  }
  if (at(0) == 0x81 && at(1) == 0x3d && b.size() >= 10) return Instruction{10, 2};
  return std::nullopt;
}

// The whole instructions covering at least kJumpLength bytes of `code`, or a Refusal.
std::vector<Instruction> decode_prologue(std::string_view function,
                                         std::span<const std::uint8_t> code) {
  std::vector<Instruction> instructions;
  std::size_t covered = 0;
  while (covered < kJumpLength) {
    const auto insn = decode(code.subspan(covered));
    if (!insn) {
      const auto shown = code.subspan(covered, std::min<std::size_t>(8, code.size() - covered));
      if (covered == 0 && !shown.empty() && shown[0] == 0xe9) {
        throw Refusal(
            fmt::format("the vDSO's {} starts with a jump ({}): it is patched already, by "
                        "idbench or another tool",
                        function, hex_bytes(shown)));
      }
      throw Refusal(fmt::format(
          "the vDSO's {} starts with an instruction idbench does not relocate, at byte {}: {} "
          "(known: push reg, mov rbp,rsp, endbr64, and/sub rsp,imm8, lea reg,[rip+disp32], "
          "cmp dword [rip+disp32],imm32)",
          function, covered, shown.empty() ? "(end of the function)" : hex_bytes(shown)));
    }
    instructions.push_back(*insn);
    covered += insn->length;
  }
  return instructions;
}

std::int32_t load_rel32(std::span<const std::uint8_t> b, std::size_t at) {
  std::int32_t v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// rel32 from the end of an instruction at `end` to `target`, or nullopt when out of range.
std::optional<std::int32_t> rel32(std::uint64_t end, std::uint64_t target) {
  const auto delta = static_cast<std::int64_t>(target - end);
  if (delta < kRel32Min || delta > kRel32Max) return std::nullopt;
  return static_cast<std::int32_t>(delta);
}

// Throws Refusal when a byte of `code` could start a branch (jmp, jcc, jrcxz/loop, call) whose
// target is in [0, displaced): after the patch that target would hold the jump's bytes. Every
// offset is tried, not only instruction starts, so the scan can refuse a vDSO it need not; it
// never misses such a branch.
void refuse_branches_into(std::string_view function, std::span<const std::uint8_t> code,
                          std::size_t displaced) {
  const auto lands_inside = [&](std::size_t end, std::int64_t rel) {
    const std::int64_t target = static_cast<std::int64_t>(end) + rel;
    return target >= 0 && target < static_cast<std::int64_t>(displaced);
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    const std::uint8_t op = code[i];
    const bool short_branch =
        op == 0xeb || (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3);
    bool inside = false;
    if (short_branch && i + 2 <= code.size()) {
      inside = lands_inside(i + 2, static_cast<std::int8_t>(code[i + 1]));
    } else if ((op == 0xe9 || op == 0xe8) && i + 5 <= code.size()) {
      inside = lands_inside(i + 5, load_rel32(code, i + 1));
    } else if (op == 0x0f && i + 6 <= code.size() && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f) {
      inside = lands_inside(i + 6, load_rel32(code, i + 2));
    }
    if (inside) {
      throw Refusal(
          fmt::format("the vDSO's {} may branch into its first {} bytes (bytes at {}: "
                      "{}), which the patch overwrites",
                      function, displaced, i,
                      hex_bytes(code.subspan(i, std::min<std::size_t>(6, code.size() - i)))));
    }
  }
}

}  // namespace

RelocatedPrologue relocate_prologue(std::string_view function, std::span<const std::uint8_t> code,
                                    std::uint64_t from, std::uint64_t at) {
  const std::vector<Instruction> instructions = decode_prologue(function, code);
  RelocatedPrologue copy;
  for (const Instruction& insn : instructions) {
    const std::size_t start = copy.displaced;
    copy.code.insert(copy.code.end(), code.begin() + static_cast<std::ptrdiff_t>(start),
                     code.begin() + static_cast<std::ptrdiff_t>(start + insn.length));
    if (insn.disp_at != 0) {
      const std::uint64_t target =
          from + start + insn.length +
          static_cast<std::uint64_t>(std::int64_t{load_rel32(code, start + insn.disp_at)});
      const auto disp = rel32(at + start + insn.length, target);
      if (!disp) {
        throw Refusal(
            fmt::format("the vDSO's {}: the RIP-relative operand at byte {} reaches "
                        "{:#x}, out of ±2 GiB of the copy at {:#x}",
                        function, start, target, at));
      }
      std::memcpy(copy.code.data() + start + insn.disp_at, &*disp, sizeof *disp);
    }
    copy.displaced += insn.length;
  }
  refuse_branches_into(function, code, copy.displaced);
  const auto back = rel32(at + copy.displaced + kJumpLength, from + copy.displaced);
  if (!back) {
    throw Refusal(
        fmt::format("the vDSO's {}: the copy at {:#x} cannot jump back to {:#x} (out of "
                    "±2 GiB)",
                    function, at, from + copy.displaced));
  }
  copy.code.push_back(0xe9);
  copy.code.resize(copy.code.size() + sizeof(std::int32_t));
  std::memcpy(copy.code.data() + copy.displaced + 1, &*back, sizeof *back);
  return copy;
}

void verify_relocation(std::string_view function, std::span<const std::uint8_t> code,
                       std::uint64_t from, const RelocatedPrologue& copy, std::uint64_t at) {
  const auto fail = [&](std::size_t byte, std::string_view what) {
    throw Error(fmt::format("the relocated copy of the vDSO's {} is wrong at byte {}: {}", function,
                            byte, what));
  };
  if (copy.code.size() != copy.displaced + kJumpLength || copy.displaced > code.size()) {
    fail(0, "its length is not the displaced instructions' and a jump's");
  }
  std::size_t start = 0;
  for (const Instruction& insn : decode_prologue(function, code)) {
    if (start + insn.length > copy.displaced)
      fail(start, "it displaces fewer bytes than the original's");
    for (std::size_t k = 0; k < insn.length; ++k) {
      const bool disp = insn.disp_at != 0 && k >= insn.disp_at && k < insn.disp_at + 4;
      if (!disp && copy.code[start + k] != code[start + k]) fail(start + k, "a byte differs");
    }
    if (insn.disp_at != 0) {
      const std::uint64_t end = start + insn.length;
      const auto original =
          from + end +
          static_cast<std::uint64_t>(std::int64_t{load_rel32(code, start + insn.disp_at)});
      const auto moved =
          at + end +
          static_cast<std::uint64_t>(std::int64_t{load_rel32(copy.code, start + insn.disp_at)});
      if (original != moved) fail(start, fmt::format("reaches {:#x}, not {:#x}", moved, original));
    }
    start += insn.length;
  }
  if (start != copy.displaced) fail(start, "it displaces other instructions than the original's");
  const std::uint64_t jump_end = at + start + kJumpLength;
  const auto back =
      jump_end + static_cast<std::uint64_t>(std::int64_t{load_rel32(copy.code, start + 1)});
  if (copy.code[start] != 0xe9 || back != from + start) {
    fail(start, fmt::format("its jump back reaches {:#x}, not {:#x}", back, from + start));
  }
}

std::vector<std::uint8_t> entry_jump(std::uint64_t from, std::uint64_t to, std::size_t length) {
  const auto rel = rel32(from + kJumpLength, to);
  if (!rel) {
    throw Refusal(
        fmt::format("the trampoline at {:#x} is out of ±2 GiB of the vDSO entry point "
                    "at {:#x}",
                    to, from));
  }
  std::vector<std::uint8_t> bytes(std::max(length, kJumpLength), 0xcc);  // int3 padding
  bytes[0] = 0xe9;
  std::memcpy(bytes.data() + 1, &*rel, sizeof *rel);
  return bytes;
}

}  // namespace idbench::inject
