// matrix_progress.hpp — the chaos matrix's progress lines for a person: the plan, each cell as
// it starts and ends, the time left, and the summary. chaos.json is matrix_json.hpp's.
//
// Thread safety: each function writes to the FILE* given, nothing when it is nullptr.
#pragma once

#include <cstddef>
#include <cstdio>

#include "chaos/matrix.hpp"
#include "chaos/matrix_json.hpp"

namespace idbench::chaos {

void print_plan(const MatrixPlan& plan, std::FILE* progress);
void print_cell_start(const MatrixPlan& plan, std::size_t i, std::FILE* progress);
void print_cell_result(const CellOutcome& outcome, std::FILE* progress);
void print_time_left(const MatrixPlan& plan, std::size_t i, double elapsed_s, double overhead_s,
                     std::FILE* progress);
void print_summary(const MatrixDocument& doc, std::FILE* progress);

}  // namespace idbench::chaos
