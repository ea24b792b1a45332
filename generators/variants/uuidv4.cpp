// uuidv4 — RFC 9562 §5.4: 122 random bits. No order, no clock, no coordination; the
// baseline that kills B-tree locality (§6.11) and the one to use where an ID must be
// unguessable (§8).
#include "generators/random.hpp"
#include "generators/registry.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

class UuidV4 {
 public:
  using id_type = Uuid;
  explicit UuidV4(const GeneratorOptions&) {}

  Uuid next() {
    std::uint64_t random[2];
    fill_random(random, sizeof random);
    return uuid_format::make(random[0], random[1], 4);
  }
  std::string format() const { return "UUIDv4 (RFC 9562 §5.4), 122 random bits"; }
};

}  // namespace

Variant describe_uuidv4() {
  return {.name = "uuidv4",
          .summary = "RFC 9562 UUIDv4: 122 CSPRNG bits, unordered",
          .family = "uuid",
          .scheme = "UUIDv4",
          .width = IdWidth::bits128,
          .defaults = {.chaos = false, .chaos_quick = false, .locality = true},
          .make = factory_of<UuidV4>()};
}

}  // namespace idbench
