// locality_command.hpp — `idbench locality`: where a stream of IDs lands in a clustered index.
//
//   idbench locality (--variant V | --keys FILE | --synthetic sequential|random)
//       [--layout L] [--key-type bigint|binary16] [--payload-bytes B] [--rows N] [--rate R]
//       [--writers W] [--arrival round-robin|random] [--seed S]
//       [--engine model|sqlite|mariadb|postgres] [--pool-pages N | --pool-percent P] [--json]
//   idbench locality --validate [--rows N] [--json]
//
// Exit status: 0 done (validation: the model agrees with InnoDB); 1 validation disagrees;
// 2 bad input (idbench::Error, printed by main); 4 an engine's server is not installed (the
// message names the Debian package).
//
// Thread safety: registration is not thread-safe (CLI11 apps are not).
#pragma once

#include <CLI/CLI.hpp>

namespace idbench::locality {

inline constexpr int kExitDisagrees = 1;
inline constexpr int kExitEngineMissing = 4;

void add_locality_command(CLI::App& app);

}  // namespace idbench::locality
