// ticket-pair — Flickr's ticket servers (2010): two independent counters, one issuing odd and
// one even numbers (auto_increment_increment = 2, offsets 1 and 2), asked alternately. Unique
// without coordination between the two; not time-ordered, since the streams drift apart as
// soon as one server takes more requests than the other.
#include <array>
#include <atomic>

#include "generators/registry.hpp"

namespace idbench {
namespace {

class TicketPair {
 public:
  using id_type = std::uint64_t;
  explicit TicketPair(const GeneratorOptions&) {}

  std::uint64_t next() {
    // A round-robin balancer in front of the pair. Relaxed throughout: each server's counter
    // is unique by its own modification order, and the two never share a value (odd/even).
    const std::uint64_t server = turn_.fetch_add(1, std::memory_order_relaxed) & 1;
    return servers_[server].next.fetch_add(2, std::memory_order_relaxed);
  }
  std::string format() const { return "ticket pair: odd server 1,3,5,… and even server 2,4,6,…"; }

 private:
  // Each server on its own cache line, as each is its own machine.
  struct alignas(64) Server {
    std::atomic<std::uint64_t> next;
  };
  std::array<Server, 2> servers_{Server{1}, Server{2}};
  alignas(64) std::atomic<std::uint64_t> turn_{0};
};

}  // namespace

Variant describe_ticket_pair() {
  return {.name = "ticket-pair",
          .summary = "Flickr's two ticket servers, odd and even, asked alternately",
          .family = "counter",
          .scheme = "ticket server",
          .in_process_lower_bound = true,
          .defaults = {.chaos = false, .chaos_quick = false, .locality = true},
          .make = factory_of<TicketPair>()};
}

}  // namespace idbench
