// uuidv1 — RFC 9562 UUIDv1 (DCE 1994): 100-ns time low/mid/high, clock sequence, node. Its
// low 32 time bits come first, so it does not sort by time (dce_uuid.hpp).
#include "generators/dce_uuid.hpp"
#include "generators/registry.hpp"

namespace idbench {

Variant describe_uuidv1() {
  return {.name = "uuidv1",
          .summary = "RFC 9562 UUIDv1: 100-ns time split low/mid/high, 14-bit clock sequence, "
                     "48-bit node (DCE 1994)",
          .family = "uuid",
          .scheme = "DCE",
          .width = IdWidth::bits128,
          .ordering = Ordering::none,
          .time_based = true,
          .node_ids = NodeIds::one,
          .id_time = IdTime::uuid,
          .defaults = {.chaos = false,
                       .chaos_quick = false,
                       .locality = true,
                       .clock_sequence = true,
                       .clock_sequence_quick = false,
                       .locality_live_pace = true},
          .make = factory_of<DceUuid<1>>()};
}

}  // namespace idbench
