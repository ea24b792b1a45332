// vdso_test.cpp — the vDSO's entry points and their relocated prologues, on bytes: this
// machine's vDSO, planted prologues (each whitelisted form, an unknown instruction, an operand
// out of reach, a branch into the displaced bytes), a planted wrong relocation caught, planted
// ELF headers of other machines refused; and where a trampoline may be mapped.
#include "inject/vdso.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "inject/vdso_patch.hpp"

namespace idbench::inject {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kFrom = 0x7f0000001830;  // a vDSO function's address
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

Bytes own_vdso() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  for (const Mapping& m : parse_maps(text.str())) {
    if (m.name == "[vdso]") {
      const auto* begin = reinterpret_cast<const std::uint8_t*>(m.start);
      return Bytes(begin, begin + (m.end - m.start));
    }
  }
  ADD_FAILURE() << "this process has no [vdso]";
  return {};
}

std::int32_t rel32_at(const Bytes& b, std::size_t at) {
  std::int32_t v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// The address the rel32 at `disp_at` of an instruction ending at `end` (an offset in `b`, which
// sits at `base`) reaches.
std::uint64_t target(const Bytes& b, std::uint64_t base, std::size_t disp_at, std::size_t end) {
  return base + end + static_cast<std::uint64_t>(std::int64_t{rel32_at(b, disp_at)});
}

// `prologue` followed by a ret and int3s: a whole function for relocate_prologue.
Bytes function(Bytes prologue) {
  prologue.push_back(0xc3);
  prologue.resize(prologue.size() + 16, 0xcc);
  return prologue;
}

std::string refusal_of(const Bytes& code, std::uint64_t at,
                       std::string_view name = "clock_gettime") {
  try {
    relocate_prologue(name, code, kFrom, at);
  } catch (const Refusal& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(Vdso, ThisMachinesVdsoHasTheThreeEntryPointsAndTheyRelocate) {
  const Bytes image = own_vdso();
  const VdsoEntries entries = find_vdso_entries(image);
  EXPECT_EQ(entries[0].name, "clock_gettime");
  EXPECT_EQ(entries[1].name, "gettimeofday");
  EXPECT_EQ(entries[2].name, "time");
  const std::uint64_t base = 0x7ffff7fc1000;
  for (const VdsoFunction& f : entries) {
    const auto code = std::span(image).subspan(f.offset, f.size);
    const std::uint64_t at = base - 0x100000;
    const RelocatedPrologue copy = relocate_prologue(f.name, code, base + f.offset, at);
    EXPECT_GE(copy.displaced, kJumpLength) << f.name;
    EXPECT_NO_THROW(verify_relocation(f.name, code, base + f.offset, copy, at)) << f.name;
  }
  const std::uint64_t syscall = find_syscall_instruction(image);
  EXPECT_EQ(image[syscall], 0x0f);
  EXPECT_EQ(image[syscall + 1], 0x05);
}

TEST(Vdso, ClockGettimesPrologueIsCopiedWithAJumpBack) {
  // push rbp; mov rbp,rsp; push r14; push rbx
  const Bytes code = function({0x55, 0x48, 0x89, 0xe5, 0x41, 0x56, 0x53});
  const std::uint64_t at = kFrom + 0x40000000;
  const RelocatedPrologue copy = relocate_prologue("clock_gettime", code, kFrom, at);
  ASSERT_EQ(copy.displaced, 6u);
  ASSERT_EQ(copy.code.size(), 11u);
  EXPECT_EQ(Bytes(copy.code.begin(), copy.code.begin() + 6), Bytes(code.begin(), code.begin() + 6));
  EXPECT_EQ(copy.code[6], 0xe9);
  EXPECT_EQ(target(copy.code, at, 7, 11), kFrom + 6);
}

TEST(Vdso, ARipRelativeLeaIsRecomputedForTheCopysAddress) {
  // push rbp; lea r10,[rip-0x6838]; mov rbp,rsp (gettimeofday)
  const Bytes code = function({0x55, 0x4c, 0x8d, 0x15, 0xc8, 0x97, 0xff, 0xff, 0x48, 0x89, 0xe5});
  const std::uint64_t at = kFrom - 0x12345000;
  const RelocatedPrologue copy = relocate_prologue("gettimeofday", code, kFrom, at);
  ASSERT_EQ(copy.displaced, 8u);
  EXPECT_EQ(target(copy.code, at, 4, 8), target(code, kFrom, 4, 8));
  EXPECT_EQ(target(copy.code, at, 9, 13), kFrom + 8);
}

TEST(Vdso, ARipRelativeCmpWithAnImmediateIsRecomputedFromItsEnd) {
  // cmpl $0x7fffffff,[rip-0x6ae6]; lea rax,[rip-0x5af1] (time)
  const Bytes code =
      function({0x81, 0x3d, 0x1a, 0x95, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x48, 0x8d, 0x05});
  const std::uint64_t at = kFrom + 0x7000;
  const RelocatedPrologue copy = relocate_prologue("time", code, kFrom, at);
  ASSERT_EQ(copy.displaced, 10u);
  EXPECT_EQ(target(copy.code, at, 2, 10), target(code, kFrom, 2, 10));
  EXPECT_EQ(Bytes(copy.code.begin() + 6, copy.code.begin() + 10), (Bytes{0xff, 0xff, 0xff, 0x7f}));
}

TEST(Vdso, EndbrPushWithRexAndStackAdjustmentsAreWhitelisted) {
  // endbr64; push r12
  EXPECT_EQ(
      relocate_prologue("f", function({0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x54}), kFrom, kFrom + 64)
          .displaced,
      6u);
  // push rbp; and rsp,-16; sub rsp,16
  EXPECT_EQ(relocate_prologue("f", function({0x55, 0x48, 0x83, 0xe4, 0xf0, 0x48, 0x83, 0xec, 0x10}),
                              kFrom, kFrom + 64)
                .displaced,
            5u);
}

TEST(Vdso, AnUnknownInstructionIsRefusedNamingFunctionOffsetAndBytes) {
  // push rbp; mov rax,[rip+0] — a load, not on the whitelist
  const std::string why =
      refusal_of(function({0x55, 0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00}), kFrom + 64);
  EXPECT_NE(why.find("clock_gettime"), std::string::npos) << why;
  EXPECT_NE(why.find("at byte 1"), std::string::npos) << why;
  EXPECT_NE(why.find("48 8b 05 00"), std::string::npos) << why;
  // a prologue that ends before five bytes are covered
  EXPECT_NE(refusal_of({0x55, 0x53}, kFrom + 64).find("end of the function"), std::string::npos);
}

TEST(Vdso, AnOperandOrAJumpOutOfReachIsRefused) {
  const Bytes lea = function({0x55, 0x4c, 0x8d, 0x15, 0xc8, 0x97, 0xff, 0xff});
  const std::string far = refusal_of(lea, kFrom + 3 * kGiB, "gettimeofday");
  EXPECT_NE(far.find("RIP-relative operand at byte 1"), std::string::npos) << far;
  EXPECT_NE(far.find("±2 GiB"), std::string::npos) << far;
  EXPECT_EQ(refusal_of(lea, kFrom + kGiB, "gettimeofday"), "(not refused)");
  const Bytes plain = function({0x55, 0x48, 0x89, 0xe5, 0x41, 0x56});
  EXPECT_NE(refusal_of(plain, kFrom - 3 * kGiB).find("cannot jump back"), std::string::npos);
}

TEST(Vdso, ABranchIntoTheDisplacedBytesIsRefused) {
  // push rbp; mov rbp,rsp; push r14; then jne back to byte 1 (mov rbp,rsp)
  Bytes code = {0x55, 0x48, 0x89, 0xe5, 0x41, 0x56, 0x90, 0x75, 0xf8, 0xc3};
  ASSERT_EQ(7 + 2 + static_cast<std::int8_t>(0xf8), 1);
  const std::string why = refusal_of(code, kFrom + 64);
  EXPECT_NE(why.find("may branch into its first 6 bytes"), std::string::npos) << why;
  code[8] = 0x00;  // jne to the ret after it: fine
  EXPECT_EQ(refusal_of(code, kFrom + 64), "(not refused)");
}

TEST(Vdso, APlantedWrongRelocationIsCaught) {
  const Bytes code = function({0x55, 0x4c, 0x8d, 0x15, 0xc8, 0x97, 0xff, 0xff, 0x48, 0x89, 0xe5});
  const std::uint64_t at = kFrom + 0x10000;
  const RelocatedPrologue good = relocate_prologue("gettimeofday", code, kFrom, at);
  EXPECT_NO_THROW(verify_relocation("gettimeofday", code, kFrom, good, at));
  RelocatedPrologue wrong = good;
  wrong.code[4] ^= 1;  // the lea's displacement off by one
  EXPECT_THROW(verify_relocation("gettimeofday", code, kFrom, wrong, at), Error);
  wrong = good;
  wrong.code[9] ^= 1;  // the jump back
  EXPECT_THROW(verify_relocation("gettimeofday", code, kFrom, wrong, at), Error);
  wrong = good;
  wrong.code[1] = 0x48;  // lea into another register
  EXPECT_THROW(verify_relocation("gettimeofday", code, kFrom, wrong, at), Error);
  // a copy made for one address is wrong at another
  EXPECT_THROW(verify_relocation("gettimeofday", code, kFrom, good, at + 4096), Error);
}

TEST(Vdso, TheEntryJumpReachesTheTrampolineAndPadsWithInt3) {
  const std::uint64_t to = kFrom - 0x200000;
  const Bytes jump = entry_jump(kFrom, to, 8);
  ASSERT_EQ(jump.size(), 8u);
  EXPECT_EQ(jump[0], 0xe9);
  EXPECT_EQ(target(jump, kFrom, 1, 5), to);
  EXPECT_EQ(Bytes(jump.begin() + 5, jump.end()), Bytes(3, 0xcc));
  EXPECT_THROW(entry_jump(kFrom, kFrom + 3 * kGiB, 5), Refusal);
}

std::string elf_refusal(Bytes header) {
  try {
    require_x86_64_elf(header, "pid 7");
  } catch (const Refusal& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(Vdso, OnlyX8664ElfHeadersAreAccepted) {
  Bytes header = own_vdso();
  header.resize(sizeof(Elf64_Ehdr));
  EXPECT_EQ(elf_refusal(header), "(not refused)");
  Bytes i386 = header;
  i386[EI_CLASS] = ELFCLASS32;
  EXPECT_NE(elf_refusal(i386).find("32-bit"), std::string::npos);
  Bytes arm = header;
  const std::uint16_t aarch64 = EM_AARCH64;
  std::memcpy(arm.data() + offsetof(Elf64_Ehdr, e_machine), &aarch64, sizeof aarch64);
  EXPECT_NE(elf_refusal(arm).find("machine 183"), std::string::npos) << elf_refusal(arm);
  EXPECT_NE(elf_refusal({'#', '!', '/', 'b'}).find("not an ELF"), std::string::npos);
}

// A copy of this machine's vDSO with each "_time\0" in its strings made "_Xime\0": no
// __vdso_time, nor the "time" its string table keeps as that string's tail.
Bytes without_time() {
  Bytes image = own_vdso();
  const std::string needle("_time", 6);  // with its terminating NUL
  for (auto it = image.begin();;) {
    it = std::search(it, image.end(), needle.begin(), needle.end());
    if (it == image.end()) break;
    it[1] = 'X';
    ++it;
  }
  return image;
}

TEST(Vdso, AVdsoWithoutAnEntryPointIsRefused) {
  try {
    find_vdso_entries(without_time());
    ADD_FAILURE() << "a vDSO without time was accepted";
  } catch (const Refusal& e) {
    EXPECT_NE(std::string(e.what()).find("no time"), std::string::npos) << e.what();
  }
  Bytes no_syscall(64, 0x90);
  EXPECT_THROW(find_syscall_instruction(no_syscall), Refusal);
}

constexpr std::uint64_t kVdso = 0x7f0000000000;

std::vector<Mapping> layout() {
  return parse_maps(
      "55d000000000-55d000001000 r--p 00000000 08:01 1234 /usr/bin/prog\n"
      "55d000010000-55d000031000 rw-p 00000000 00:00 0 [heap]\n"
      "7effff000000-7effff100000 r-xp 00000000 08:01 99 /usr/lib/ld.so\n"
      "7efffffe0000-7efffffe6000 r--p 00000000 00:00 0 [vvar]\n"
      "7f0000000000-7f0000002000 r-xp 00000000 00:00 0 [vdso]\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n");
}

TEST(VdsoMaps, MapsLinesAreRead) {
  const std::vector<Mapping> maps = layout();
  ASSERT_EQ(maps.size(), 6u);
  EXPECT_EQ(maps[4].start, kVdso);
  EXPECT_EQ(maps[4].end, kVdso + 0x2000);
  EXPECT_EQ(maps[4].name, "[vdso]");
  EXPECT_EQ(maps[2].name, "/usr/lib/ld.so");
  EXPECT_EQ(parse_maps("7f0000000000-7f0000002000 rw-p 00000000 00:00 0\n")[0].name, "");
  EXPECT_THROW(parse_maps("garbage\n"), Error);
}

TEST(VdsoMaps, AProcessWithoutAVdsoIsRefused) {
  const std::vector<Mapping> maps = layout();
  EXPECT_EQ(vdso_mapping(maps, 7).start, kVdso);
  std::vector<Mapping> without = maps;
  without.erase(without.begin() + 4);
  try {
    vdso_mapping(without, 7);
    ADD_FAILURE() << "a process without [vdso] was accepted";
  } catch (const Refusal& e) {
    EXPECT_NE(std::string(e.what()).find("pid 7 has no [vdso]"), std::string::npos) << e.what();
  }
}

TEST(VdsoMaps, CandidatesAreFreeAlignedAndWithinReachNearestFirst) {
  const std::vector<Mapping> maps = layout();
  const Mapping vdso = maps[4];
  const std::uint64_t size = 0x2000;
  const std::vector<std::uint64_t> found = trampoline_candidates(maps, vdso, size);
  ASSERT_FALSE(found.empty());
  std::uint64_t last_distance = 0;
  for (const std::uint64_t at : found) {
    EXPECT_EQ(at % 4096, 0u);
    const std::uint64_t distance = at > kVdso ? at - kVdso : kVdso - at;
    EXPECT_LT(distance + size, 2 * kGiB);
    EXPECT_GE(distance, last_distance);
    last_distance = distance;
    for (const Mapping& m : maps) {
      EXPECT_TRUE(at + size + (1 << 20) <= m.start || at >= m.end + (1 << 20))
          << std::hex << at << " is within 1 MiB of " << m.name;
    }
  }
  // nothing free within reach: no candidate
  std::vector<Mapping> full = maps;
  full.push_back({kVdso - 3 * kGiB, kVdso - 0x20000, "big"});
  full.push_back({kVdso + 0x2000, kVdso + 3 * kGiB, "big"});
  std::sort(full.begin(), full.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  full.erase(std::remove_if(
                 full.begin(), full.end(),
                 [](const Mapping& m) { return m.name == "[vvar]" || m.name == "/usr/lib/ld.so"; }),
             full.end());
  EXPECT_TRUE(trampoline_candidates(full, vdso, size).empty());
}

}  // namespace
}  // namespace idbench::inject
