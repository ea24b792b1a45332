// Model-based properties of the `cas` variant over arbitrary ManualClock histories; what
// each property asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(CasModel_RestartFromMark, "cas", from_mark)
IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(CasModel_RestartAfterClockPasses, "cas", after_clock_passes)
