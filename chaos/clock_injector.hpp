// clock_injector.hpp — the two ways a chaos node's faked clock reaches its processes, named
// once for the flag, the run's JSON and the report.
//
//   libfaketime  a preloaded library (LD_PRELOAD) reading the node's timestamp file: reaches
//                what reads the clock through a dynamically linked libc;
//   ptrace       idbench-inject: the vDSO clock functions of every process of the node's tree
//                jump to a trampoline reading a shared page, and raw clock system calls are
//                trapped (seccomp) and rewritten: reaches Go programs, static binaries and raw
//                syscalls too.
//
// Thread safety: constant tables.
#pragma once

#include <array>
#include <string_view>

#include "plumbing/enum_names.hpp"

namespace idbench::chaos {

enum class ClockInjector { libfaketime, ptrace };

inline constexpr std::array<plumbing::Named<ClockInjector>, 2> kClockInjectorNames = {{
    {ClockInjector::libfaketime, "libfaketime"},
    {ClockInjector::ptrace, "ptrace"},
}};
static_assert(plumbing::one_to_one(kClockInjectorNames));

constexpr std::string_view name_of(ClockInjector i) {
  return plumbing::name_in(kClockInjectorNames, i);
}

}  // namespace idbench::chaos
