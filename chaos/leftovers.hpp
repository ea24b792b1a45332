// leftovers.hpp — the temp directories a chaos run owns. What a chaos run killed with -9 leaves
// (its records and high-water-mark directories, its libfaketime pair in /dev/shm) is swept,
// with every other kind of idbench leftover, by plumbing::sweep_leftovers()
// (plumbing/leftovers.hpp): every idbench command runs it first, and the ctest fixture
// cleanup (`idbench-chaos-node --sweep`) runs it after the chaos tests.
//
// Thread safety: thread-safe (the file system is the only state).
#pragma once

#include <string>
#include <string_view>

namespace idbench::chaos {

// A fresh temp directory $TMPDIR/<prefix>-<our pid>-XXXXXX that the caller removes (a
// released plumbing::TempDir); prefix starts with "idbench-". Throws idbench::Error.
std::string make_owned_temp_dir(std::string_view prefix);

}  // namespace idbench::chaos
