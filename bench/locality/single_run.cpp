// single_run.cpp — one locality run: build the stream, run one engine (see single_run.hpp).
#include "bench/locality/single_run.hpp"

#include <filesystem>

#include "plumbing/atomic_file.hpp"

namespace idbench::locality {

void dump_keys(const KeyStream& stream, const std::string& path) {
  plumbing::sweep_stale_temp_files(std::filesystem::path(path).parent_path().string());
  plumbing::OutputFile out(path);
  std::string chunk;
  for (const Id& id : stream.keys) {
    chunk += to_text(id, stream.width);
    chunk += '\n';
    if (chunk.size() >= (1 << 16)) {
      out.write(chunk);
      chunk.clear();
    }
  }
  out.write(chunk);
  out.commit();
}

RunResult run_locality(const RunSpec& spec) {
  if (spec.pool.pages && *spec.pool.pages == 0) throw Error("--pool-pages must be ≥ 1");
  const KeyStream stream = build_stream(spec.stream);
  if (!spec.dump_keys.empty()) dump_keys(stream, spec.dump_keys);
  return run_locality(spec, stream);
}

RunResult run_locality(const RunSpec& spec, const KeyStream& stream) {
  if (spec.pool.pages && *spec.pool.pages == 0) throw Error("--pool-pages must be ≥ 1");
  TableSpec table;
  table.key_type = spec.key_type.value_or(default_key_type(stream.width));
  if (table.key_type == KeyType::bigint && stream.width == IdWidth::bits128) {
    throw Error("128-bit IDs do not fit a bigint key: use --key-type binary16");
  }
  table.payload_bytes = spec.payload_bytes;
  table.secondary = spec.secondary;
  check_table(table);
  RunResult result;
  {
    // The engine (a server, for mariadb and postgres) is stopped before the caller prints.
    const std::unique_ptr<Engine> engine = make_engine(spec.engine, spec.pool);
    result.metrics = engine->run(stream, table);
  }
  result.description = stream.description;
  result.achieved_rate = stream.achieved_rate;
  return result;
}

}  // namespace idbench::locality
