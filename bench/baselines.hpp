// baselines.hpp — what a C++ user would call instead of an idbench generator, each shaped as a
// callable returning an Id so the bench times it with the very loop it times generators with.
//
//   clock_gettime   one CLOCK_REALTIME read: the floor under any clock-per-ID design.
//   fetch_add       one relaxed fetch_add on a shared atomic: the floor under any shared counter.
//   libuuid_random  uuid_generate_random (uuid-dev): a v4 UUID, getrandom per call.
//   libuuid_time    uuid_generate_time (uuid-dev): a v1 UUID, through uuidd or a locked file.
//   boost_random    boost::uuids::random_generator (Boost 1.74): a v4 UUID.
//
// Thread safety: clock_gettime, fetch_add and the libuuid calls are thread-safe; a
// BoostRandom is thread-compatible (one per thread).
#pragma once

#include <time.h>
#include <uuid/uuid.h>

#include <atomic>
#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid.hpp>
#include <cstdint>
#include <cstring>

#include "generators/id.hpp"

namespace idbench::bench::baseline {

inline Id clock_gettime_realtime() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return Id::from_u64(static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
                      static_cast<std::uint64_t>(ts.tv_nsec));
}

// Relaxed, as the auto-increment variant: uniqueness needs only the modification order.
inline Id fetch_add(std::atomic<std::uint64_t>& counter) {
  return Id::from_u64(counter.fetch_add(1, std::memory_order_relaxed));
}

inline Id id_of_bytes(const unsigned char* bytes) {
  Uuid u;
  std::memcpy(u.bytes.data(), bytes, u.bytes.size());
  return Id::from_uuid(u);
}

inline Id libuuid_random() {
  uuid_t u;
  uuid_generate_random(u);
  return id_of_bytes(u);
}

inline Id libuuid_time() {
  uuid_t u;
  uuid_generate_time(u);
  return id_of_bytes(u);
}

class BoostRandom {
 public:
  Id operator()() {
    const boost::uuids::uuid u = gen_();
    return id_of_bytes(u.data);
  }

 private:
  boost::uuids::random_generator gen_;
};

}  // namespace idbench::bench::baseline
