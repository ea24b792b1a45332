// uuidv1 — RFC 9562 UUIDv1 (DCE 1994): 100-ns time low/mid/high, clock sequence, node. Its
// low 32 time bits come first, so it does not sort by time (dce_uuid.hpp).
#include "generators/dce_uuid.hpp"
#include "generators/registry.hpp"

namespace idbench {

Variant describe_uuidv1() {
  return dce_uuid_variant("uuidv1",
                          "RFC 9562 UUIDv1: 100-ns time split low/mid/high, 14-bit clock "
                          "sequence, 48-bit node (DCE 1994)",
                          Ordering::none, /*clock_sequence_quick=*/false,
                          factory_of<DceUuid<1>>());
}

}  // namespace idbench
