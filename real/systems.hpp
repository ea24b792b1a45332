// systems.hpp — the real systems idbench runs: a database scheme on project-started servers,
// or an adapter around a generator nobody here wrote, each described as data.
//
//   for (const RealSystem& s : real_systems()) ...
//   RealSystem s = *find_real_system("mariadb-auto-increment");
//   RunningSystem run(s, MariadbSettings{.flush_log_at_trx_commit = 2});  // servers up
//   external::ExecSpec spec = run.exec_spec();              // the adapter, env filled in
//
// A system needs servers of one kind (server.hpp: MariaDB, PostgreSQL or Redis), 0, 1 or 2 of
// them, each with its durability. Its adapter is an external program (program.hpp) that reads
// where they answer from its kind's variable (socket_env()): IDBENCH_MARIADB_SOCKETS
// (comma-separated, in server order), IDBENCH_POSTGRES_HOST (the socket's directory),
// IDBENCH_REDIS_SOCKET.
// `idbench list --json` exports every system (its "systems" array).
//
// Thread safety: the list is immutable; a RunningSystem is thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "external/program.hpp"
#include "real/server.hpp"

namespace idbench::real {

// The variable a system's adapter finds its servers in; nullptr for ServerKind::none.
const char* socket_env(ServerKind kind);

struct RealSystem {
  std::string name;     // "mariadb-auto-increment", "python-uuid1", "node-ulid", ...
  std::string summary;  // one line, names the real implementation and its version source
  // The decision-table row ("AUTO_INCREMENT", "Ticket server", "UUIDv1", "UUIDv4", "UUIDv7",
  // "ULID", "KSUID", "Snowflake"); the report puts the real figures there.
  std::string scheme;
  // The in-process variant it is the real counterpart of ("auto-increment", "ticket-pair");
  // empty when there is none.
  std::string lower_bound_variant;
  ServerKind server_kind = ServerKind::none;  // the kind of its servers
  int servers = 0;                            // servers to start before the adapter
  // Settings of server i (i = 0, 1), given the run's durability; the ticket pair sets
  // auto_increment_increment=2 and offsets 1 and 2.
  std::function<ServerSettings(int server, const ServerSettings& base)> server_settings;
  // The adapter, relative to the source tree (resolved by adapter_path()); its id_time,
  // width and ordering describe its IDs as --exec would.
  external::ExecSpec exec;
  bool in_quick_pass = false;  // runs in ./run.sh's quick pass (the full profile runs all)
};

std::span<const RealSystem> real_systems();
const RealSystem* find_real_system(std::string_view name);

// The directory the adapters live in: $IDBENCH_ADAPTERS, else <source dir>/adapters (baked in
// at build time), else next to the binary.
std::string adapters_dir();

// The MariaDB adapter's null scheme: IDs from a counter, no server. Through it the harness
// measures its own hop (request written, IDs read back through a pipe) apart from any system.
external::ExecSpec null_adapter_spec();

// A system with its servers running.
class RunningSystem {
 public:
  RunningSystem(const RealSystem& system, const ServerSettings& base);
  ~RunningSystem();
  const RealSystem& system() const;
  // The adapter's spec with its servers' sockets (socket_env()) and the adapters dir in its
  // env.
  external::ExecSpec exec_spec() const;
  std::vector<Server*> servers();
  // The settings server i was started with (its kind's part is what it runs with).
  const ServerSettings& settings(std::size_t server) const;
  // "MariaDB 10.11.x, innodb_flush_log_at_trx_commit=1, ..." of server 0 (its kind's
  // describe()); empty without servers.
  std::string describe();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace idbench::real
