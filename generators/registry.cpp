#include "generators/registry.hpp"

#include <fmt/format.h>

#include <vector>

#include "generators/errors.hpp"

namespace idbench {

// One line per variant; each is defined in variants/<name>.cpp.
Variant describe_mutex();
Variant describe_cas();
Variant describe_thread_local();
Variant describe_uuidv7();
Variant describe_uuidv7_random();
Variant describe_uuidv4();
Variant describe_auto_increment();
Variant describe_ticket_pair();

std::span<const Variant> variants() {
  static const std::vector<Variant> all = {
      describe_mutex(),          describe_cas(),           describe_thread_local(),
      describe_uuidv7(),         describe_uuidv7_random(), describe_uuidv4(),
      describe_auto_increment(), describe_ticket_pair(),
  };
  return all;
}

const Variant* find_variant(std::string_view name) {
  for (const auto& v : variants()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::unique_ptr<Generator> make_generator(std::string_view name, const GeneratorOptions& opts) {
  const Variant* variant = find_variant(name);
  if (variant == nullptr) {
    std::string names;
    for (const auto& v : variants())
      names += fmt::format("{}{}", names.empty() ? "" : ", ", v.name);
    throw Error(fmt::format("unknown variant '{}'; one of: {}", name, names));
  }
  auto gen = variant->make(opts);
  gen->set_name(std::string(variant->name));
  return gen;
}

}  // namespace idbench
