// beside_self.hpp — finding a program built beside the running executable: the node binaries
// (idbench-coord-node, idbench-chaos-node, idbench-real-client) that a run starts, which CMake
// puts in the same bin directory as idbench and the tests.
//
//   const std::string bin = plumbing::program_beside_self("idbench-real-client");
//
// Thread safety: thread-safe (reads /proc/self/exe and the file system).
#pragma once

#include <string>
#include <string_view>

namespace idbench::plumbing {

// The path of `name` in the directory of /proc/self/exe. Throws Error when it is not there:
// "NAME not found beside this executable; build it (ninja NAME)".
std::string program_beside_self(std::string_view name);

}  // namespace idbench::plumbing
