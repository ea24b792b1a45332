// auto-increment — one shared counter, as a single database's AUTO_INCREMENT: perfectly
// ordered and dense, and every ID passes through one place. The single-database baseline.
#include <atomic>

#include "generators/registry.hpp"

namespace idbench {
namespace {

class AutoIncrement {
 public:
  using id_type = std::uint64_t;
  explicit AutoIncrement(const GeneratorOptions&) {}

  // Relaxed: uniqueness needs only the atomic's single modification order.
  std::uint64_t next() { return counter_.fetch_add(1, std::memory_order_relaxed); }
  std::string format() const { return "AUTO_INCREMENT: one shared counter from 1"; }

 private:
  alignas(64) std::atomic<std::uint64_t> counter_{1};
};

}  // namespace

Variant describe_auto_increment() {
  return {.name = "auto-increment",
          .summary = "one shared atomic counter: the single-database AUTO_INCREMENT",
          .family = "counter",
          .scheme = "AUTO_INCREMENT",
          .ordering = Ordering::k_sorted,
          .in_process_lower_bound = true,
          .defaults = {.chaos = false, .chaos_quick = false, .locality = true},
          .make = factory_of<AutoIncrement>()};
}

}  // namespace idbench
