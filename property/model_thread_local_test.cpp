// Model-based properties of the `thread-local` variant over arbitrary ManualClock histories; what
// each property asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(ThreadLocalModel_RestartFromMark, "thread-local", from_mark)
IDBENCH_SNOWFLAKE_MODEL_PROPERTIES(ThreadLocalModel_RestartAfterClockPasses, "thread-local",
                                   after_clock_passes)
