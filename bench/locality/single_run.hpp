// single_run.hpp — one locality run: a stream of keys into one engine, measured.
//
//   RunSpec spec;  spec.stream.variant = "...";  spec.stream.rows = 200'000;
//   RunResult r = run_locality(spec);   // what `idbench locality --variant ...` does
//
// `dump_keys`, when set, also writes the stream in the --keys format through
// plumbing::OutputFile (temp + rename): the file is complete or not there at all.
//
// Errors: idbench::Error for a bad spec (exit 2), plumbing::OutputError for a dump that cannot
// be written, EngineUnavailable when a real engine's server is not installed, a ClockError
// when a generator refuses.
//
// Thread safety: reentrant.
#pragma once

#include <optional>
#include <string>

#include "bench/locality/engines.hpp"
#include "bench/locality/key_stream.hpp"

namespace idbench::locality {

struct RunSpec {
  StreamSpec stream;
  std::optional<KeyType> key_type;  // nullopt: from the stream's width
  int payload_bytes = 0;
  bool secondary = false;  // TableSpec::secondary
  std::string engine = "model";
  PoolSpec pool;
  std::string dump_keys;  // empty: none
};

struct RunResult {
  Metrics metrics;
  std::string description;   // KeyStream::description
  double achieved_rate = 0;  // KeyStream::achieved_rate
};

RunResult run_locality(const RunSpec& spec);

// The same run on a stream already built from `spec.stream` (`spec.dump_keys` is not read): the
// matrix inserts one stream at every row size, so the row size is the only thing that differs.
RunResult run_locality(const RunSpec& spec, const KeyStream& stream);

// Writes the stream's keys, one per line, to `path` (all or nothing).
void dump_keys(const KeyStream& stream, const std::string& path);

}  // namespace idbench::locality
