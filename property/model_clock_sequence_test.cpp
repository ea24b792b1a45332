// Model-based properties of the clock-sequence policy (DCE 1994) on layouts with gen bits,
// for the variants that keep it (mutex, thread-local); what each asserts is in model.hpp.
#include "property/model.hpp"

IDBENCH_CLOCK_SEQUENCE_MODEL_PROPERTIES(MutexClockSequenceModel, "mutex")
IDBENCH_CLOCK_SEQUENCE_MODEL_PROPERTIES(ThreadLocalClockSequenceModel, "thread-local")
