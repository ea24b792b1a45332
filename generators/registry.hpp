// registry.hpp — every variant idbench knows, by the name the CLI uses.
//
// The bench, locality and chaos code loop over `variants()`; none of them names a variant.
// Adding a variant is one file in variants/ defining `Variant describe_<name>()` and one line
// in registry.cpp.
//
// Thread safety: the registry is immutable.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "generators/generator.hpp"

namespace idbench {

struct Variant {
  std::string_view name;
  std::string_view summary;
  IdWidth width = IdWidth::bits64;
  bool time_based = false;   // reads a clock, so takes a policy
  bool uses_layout = false;  // a 64-bit Snowflake-family layout
  std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> make;
};

std::span<const Variant> variants();
// nullptr when there is no such variant.
const Variant* find_variant(std::string_view name);

// Wraps an IdGenerator type as a registry factory.
template <IdGenerator G>
std::function<std::unique_ptr<Generator>(const GeneratorOptions&)> factory_of() {
  return [](const GeneratorOptions& opts) -> std::unique_ptr<Generator> {
    return std::make_unique<ErasedGenerator<G>>(opts);
  };
}

}  // namespace idbench
