// run_text.hpp — locality results for a person to read (`idbench locality` without --json).
//
// Thread safety: reentrant.
#pragma once

#include <ostream>

#include "bench/locality/single_run.hpp"
#include "bench/locality/validate.hpp"

namespace idbench::locality {

void print_run(const RunResult& result, std::ostream& out);
void print_validation(const ValidationReport& report, std::ostream& out);

}  // namespace idbench::locality
