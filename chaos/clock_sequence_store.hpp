// clock_sequence_store.hpp — the clock-sequence policy's stable storage: one file per node id
// holding its generations (sequencer.hpp: the clock sequence, the lap and the highest tick),
// written durably before an ID of a new generation is returned (RFC 9562 §6.3; DCE 1994 App.
// A: "keep the clock sequence and the last timestamp in stable storage").
//
//   auto store = std::make_shared<ClockSequenceStore>("/var/lib/ids");
//   opts.generation_store = store;          // with the high-water mark's ReservingClock
//
// The last timestamp is the high-water mark (high_water_mark.hpp), which already covers every
// tick issued; this file adds what the mark cannot say: which generations may have issued up
// to it. A restart with the clock behind the mark then moves to the next generation and issues
// at once, instead of refusing or waiting until the clock passes the mark.
//
// File: `gen lap_first floor high` as four decimal numbers and a newline; anything else is a
// HighWaterMarkError (a corrupt state must not be guessed at). Writes go through
// plumbing::write_file_atomically (temp file, fsync, rename, fsync of the directory).
//
// Thread safety: thread-safe (a mutex orders the writes).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "generators/generator.hpp"

namespace idbench::chaos {

// Where a node keeps its clock-sequence state in `persist_dir`.
std::string clock_sequence_path(const std::string& persist_dir, std::uint64_t node_id);

// The state in a file's text; throws HighWaterMarkError naming `path` unless it is exactly
// four canonical decimal numbers (floor and high may be -1) and a newline.
Generations parse_generations(std::string_view text, const std::string& path);

class ClockSequenceStore final : public GenerationStore {
 public:
  explicit ClockSequenceStore(std::string persist_dir) : dir_(std::move(persist_dir)) {}
  std::optional<Generations> load(std::uint64_t node) override;
  void store(std::uint64_t node, const Generations& gens) override;
  int stores() const;

 private:
  const std::string dir_;
  mutable std::mutex mu_;
  int stores_ = 0;  // guarded by mu_
};

}  // namespace idbench::chaos
