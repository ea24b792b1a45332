// Model-based properties of the `uuidv7-random` variant over arbitrary ManualClock histories; what
// each property asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_UUIDV7_MODEL_PROPERTIES(UuidV7RandomModel_RestartFromMark, "uuidv7-random", from_mark)
IDBENCH_UUIDV7_MODEL_PROPERTIES(UuidV7RandomModel_RestartAfterClockPasses, "uuidv7-random",
                                after_clock_passes)
