// Model-based properties of the `mutex` variant over arbitrary ManualClock histories; what
// each property asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(MutexModel_RestartFromMark, "mutex", from_mark)
IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(MutexModel_RestartAfterClockPasses, "mutex", after_clock_passes)
