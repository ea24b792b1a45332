// uuidv6 — RFC 9562 UUIDv6: UUIDv1's fields with the timestamp high to low, so it sorts
// (v1 "reordered for improved DB locality", §5.6; dce_uuid.hpp).
#include "generators/dce_uuid.hpp"
#include "generators/registry.hpp"

namespace idbench {

Variant describe_uuidv6() {
  return dce_uuid_variant("uuidv6",
                          "RFC 9562 UUIDv6: UUIDv1 with the 100-ns time high to low (sorts), "
                          "14-bit clock sequence, 48-bit node",
                          Ordering::k_sorted, /*clock_sequence_quick=*/true,
                          factory_of<DceUuid<6>>());
}

}  // namespace idbench
