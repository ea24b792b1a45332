// reference.hpp — bench-only reference generators: the floors under every design and the
// original shape a variant improves on. They go through the same erased interface and Clock
// seam as the variants, so the bench times them with the same loop, but they are not registry
// variants: their IDs prove nothing (a floor is not unique, the reference is `mutex`'s IDs at
// another cost), so the chaos, locality and report code never sees them.
//
//   make_no_clock_floor       reads no clock: a per-thread counter. The harness's own cost per
//                             ID (loop, virtual call, Id).
//   make_clock_once_floor     reads the clock once and returns the reading: the floor under any
//                             design that reads the clock once per ID.
//   make_clock_once_lock_floor
//                             that, then one std::mutex held around a store of the reading:
//                             the floor under a design that commits under one mutex (mutex).
//   make_clock_once_cas_floor that, then one compare-exchange of a shared word for the
//                             reading: the floor under a design that commits by one CAS (cas).
//   make_clock_under_lock_mutex
//                             Twitter's original shape (2010): one lock around the whole of
//                             nextId(), the clock read inside it, so every caller queues
//                             behind a clock read. `mutex` reads it before taking the lock.
//
// The minimal designs (minimal.cpp): each concurrency scheme in its shortest correct form, hard-coded
// to the Twitter layout and the refuse policy, with no configuration: the floor a variant's
// instructions per ID are compared with (idbench-icount), so that what a variant costs above
// it is the harness's generality, not the design.
//   make_minimal_cas          one compare-exchange of (ms << 12 | seq); refuses on a backward
//                             clock.
//   make_minimal_mutex        one std::mutex, the clock read outside it.
//   make_minimal_per_thread   per-thread (ms, seq), no shared write.
//   make_minimal_uuidv7       RFC 9562 §6.2 method 1: a 42-bit counter seeded each ms, 32 fresh
//                             random bits per ID from a 4 KiB getrandom buffer per thread,
//                             behind one std::mutex.
//
// Thread safety: every generator here is thread-safe.
#pragma once

#include <memory>

#include "generators/generator.hpp"

namespace idbench {

std::unique_ptr<Generator> make_no_clock_floor(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_clock_once_floor(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_clock_once_lock_floor(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_clock_once_cas_floor(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_clock_under_lock_mutex(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_minimal_cas(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_minimal_mutex(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_minimal_per_thread(const GeneratorOptions& opts);
std::unique_ptr<Generator> make_minimal_uuidv7(const GeneratorOptions& opts);

}  // namespace idbench
