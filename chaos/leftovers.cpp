// leftovers.cpp — the temp directories a chaos run owns (see leftovers.hpp).
#include "chaos/leftovers.hpp"

#include "plumbing/temp_dir.hpp"

namespace idbench::chaos {

std::string make_owned_temp_dir(std::string_view prefix) {
  return plumbing::TempDir(prefix).release();
}

}  // namespace idbench::chaos
