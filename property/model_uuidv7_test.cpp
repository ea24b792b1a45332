// Model-based properties of the `uuidv7` variant over arbitrary ManualClock histories; what
// each property asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_UUIDV7_MODEL_PROPERTIES(UuidV7Model_RestartFromMark, "uuidv7", from_mark)
IDBENCH_UUIDV7_MODEL_PROPERTIES(UuidV7Model_RestartAfterClockPasses, "uuidv7", after_clock_passes)
