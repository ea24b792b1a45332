// process.hpp — the chaos driver's names for the one child-process type (plumbing/).
//
// A node is a plumbing::ChildProcess started and stopped by fault::Fleet (fault/fleet.hpp):
// its own process group, killed with the driver (PR_SET_PDEATHSIG), stdin/stdout piped for
// the line protocol, stderr to a file. The interrupt guard, `interrupted()` and `Interrupted`
// are plumbing's too, so a signal kills every live child of any idbench subsystem at once.
// See plumbing/child_process.hpp.
//
// Thread safety: as plumbing/child_process.hpp.
#pragma once

#include "plumbing/child_process.hpp"

namespace idbench::chaos {

using plumbing::ChildProcess;
using plumbing::InterruptGuard;
using plumbing::Interrupted;
using plumbing::interrupted;
using plumbing::read_text_file;
using plumbing::throw_if_interrupted;

}  // namespace idbench::chaos
