// uuidv6 — RFC 9562 UUIDv6: UUIDv1's fields with the timestamp high to low, so it sorts
// (v1 "reordered for improved DB locality", §5.6; dce_uuid.hpp).
#include "generators/dce_uuid.hpp"
#include "generators/registry.hpp"

namespace idbench {

Variant describe_uuidv6() {
  return {.name = "uuidv6",
          .summary = "RFC 9562 UUIDv6: UUIDv1 with the 100-ns time high to low (sorts), 14-bit "
                     "clock sequence, 48-bit node",
          .family = "uuid",
          .scheme = "DCE",
          .width = IdWidth::bits128,
          .ordering = Ordering::k_sorted,
          .time_based = true,
          .node_ids = NodeIds::one,
          .id_time = IdTime::uuid,
          .defaults = {.chaos = false,
                       .chaos_quick = false,
                       .locality = true,
                       .clock_sequence = true,
                       .clock_sequence_quick = true,
                       .locality_live_pace = true},
          .make = factory_of<DceUuid<6>>()};
}

}  // namespace idbench
