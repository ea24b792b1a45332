// systems.cpp — the registry of real systems (systems.hpp) and starting one: its servers, its
// adapter's command resolved and its environment filled in.
#include "real/systems.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>

#include "generators/errors.hpp"

namespace idbench::real {

namespace {

namespace fs = std::filesystem;

constexpr const char* kMariadbAdapter = "idbench-mariadb-adapter";
constexpr const char* kPostgresAdapter = "idbench-postgres-adapter";
constexpr const char* kRedisAdapter = "idbench-redis-adapter";

ServerSettings same(int /*server*/, const ServerSettings& base) { return base; }

// Flickr's pair: both servers count by 2, one from 1 and one from 2.
ServerSettings ticket_pair(int server, const ServerSettings& base) {
  ServerSettings s = base;
  s.mariadb.auto_increment_increment = 2;
  s.mariadb.auto_increment_offset = server + 1;
  return s;
}

external::ExecSpec spec(std::string command, IdTime id_time, IdWidth width, Ordering ordering) {
  external::ExecSpec e;
  e.command = std::move(command);
  e.id_time = id_time;
  e.width = width;
  e.ordering = ordering;
  return e;
}

RealSystem mariadb(std::string name, std::string summary, std::string scheme,
                   std::string lower_bound, std::string adapter_args, IdTime id_time,
                   IdWidth width, Ordering ordering, bool quick) {
  const bool pair = adapter_args.starts_with("ticket-pair");
  return RealSystem{
      std::move(name),
      std::move(summary),
      std::move(scheme),
      std::move(lower_bound),
      ServerKind::mariadb,
      pair ? 2 : 1,
      pair ? ticket_pair : same,
      spec(fmt::format("{} {}", kMariadbAdapter, adapter_args), id_time, width, ordering),
      quick};
}

// A scheme on one server of `kind` (PostgreSQL, Redis), through its adapter.
RealSystem on_server(ServerKind kind, std::string name, std::string summary, std::string scheme,
                     std::string lower_bound, std::string command, IdTime id_time, IdWidth width,
                     Ordering ordering, bool quick) {
  return RealSystem{std::move(name),
                    std::move(summary),
                    std::move(scheme),
                    std::move(lower_bound),
                    kind,
                    1,
                    same,
                    spec(std::move(command), id_time, width, ordering),
                    quick};
}

// PostgreSQL 15 (Debian's postgresql-15; the version is in describe()), one statement per
// request: N IDs come from one statement over generate_series.
void add_postgres(std::vector<RealSystem>& s) {
  constexpr auto pg = ServerKind::postgres;
  const auto a = [](const char* args) { return fmt::format("{} {}", kPostgresAdapter, args); };
  s.push_back(on_server(pg, "postgres-sequence",
                        "PostgreSQL CREATE SEQUENCE … CACHE 1, SELECT nextval(s)", "SEQUENCE",
                        "auto-increment", a("sequence --cache 1"), IdTime::none, IdWidth::bits64,
                        Ordering::monotone_per_stream, true));
  s.push_back(on_server(pg, "postgres-sequence-cache50",
                        "PostgreSQL sequence with CACHE 50: each session takes a block of 50, so "
                        "IDs are unique but out of order across clients",
                        "SEQUENCE", "auto-increment", a("sequence --cache 50"), IdTime::none,
                        IdWidth::bits64, Ordering::monotone_per_stream, false));
  s.push_back(on_server(pg, "postgres-identity",
                        "PostgreSQL GENERATED ALWAYS AS IDENTITY column, INSERT … RETURNING id",
                        "AUTO_INCREMENT", "auto-increment", a("identity"), IdTime::none,
                        IdWidth::bits64, Ordering::monotone_per_stream, false));
  s.push_back(on_server(pg, "postgres-instagram-next-id",
                        "Instagram's PL/pgSQL next_id() as published: ms since 1314220021721 << "
                        "23 | shard 5 << 10 | nextval(seq) % 1024",
                        "Instagram next_id()", "", a("instagram"), IdTime::layout, IdWidth::bits64,
                        Ordering::k_sorted_by_tick, true));
  s.back().exec.layout = "instagram";
  s.push_back(on_server(pg, "postgres-uuid-v1",
                        "PostgreSQL uuid-ossp uuid_generate_v1(): version 1, the server's MAC",
                        "UUIDv1", "", a("uuid-v1"), IdTime::uuid, IdWidth::bits128, Ordering::none,
                        false));
  s.push_back(on_server(pg, "postgres-uuid-v1mc",
                        "PostgreSQL uuid-ossp uuid_generate_v1mc(): version 1, a random "
                        "multicast node",
                        "UUIDv1", "", a("uuid-v1mc"), IdTime::uuid, IdWidth::bits128,
                        Ordering::none, false));
  s.push_back(on_server(pg, "postgres-gen-random-uuid", "PostgreSQL gen_random_uuid(): version 4",
                        "UUIDv4", "", a("gen-random-uuid"), IdTime::none, IdWidth::bits128,
                        Ordering::none, false));
}

// A generator nobody here wrote, behind its adapter: `command` is the adapter and its scheme
// argument ("idbench-adapter python uuid1", "idbench-go-adapter rs-xid"), resolved at start.
RealSystem adapter(std::string name, std::string summary, std::string scheme, std::string command,
                   IdTime id_time, IdWidth width, Ordering ordering, bool quick) {
  return RealSystem{std::move(name),
                    std::move(summary),
                    std::move(scheme),
                    "",
                    ServerKind::none,
                    0,
                    same,
                    spec(std::move(command), id_time, width, ordering),
                    quick};
}

std::vector<RealSystem> make_systems() {
  constexpr auto b64 = IdWidth::bits64;
  constexpr auto b128 = IdWidth::bits128;
  std::vector<RealSystem> s;
  // MariaDB (Debian's mariadb-server; the version is in describe()), one statement per ID.
  s.push_back(mariadb("mariadb-auto-increment",
                      "MariaDB InnoDB AUTO_INCREMENT: INSERT, then LAST_INSERT_ID() "
                      "(mysql_insert_id), one connection per client",
                      "AUTO_INCREMENT", "auto-increment", "auto-increment", IdTime::none, b64,
                      Ordering::monotone_per_stream, true));
  s.push_back(mariadb("mariadb-sequence", "MariaDB CREATE SEQUENCE, SELECT NEXTVAL(s)", "SEQUENCE",
                      "auto-increment", "sequence", IdTime::none, b64,
                      Ordering::monotone_per_stream, false));
  s.push_back(mariadb("mariadb-uuid", "MariaDB SELECT UUID(): version 1 UUID text", "UUIDv1", "",
                      "uuid", IdTime::uuid, b128, Ordering::none, false));
  s.push_back(mariadb("mariadb-uuid-short",
                      "MariaDB SELECT UUID_SHORT(): server_id<<56 + start-up seconds<<24 + a "
                      "counter",
                      "UUID_SHORT", "", "uuid-short", IdTime::none, b64,
                      Ordering::monotone_per_stream, false));
  s.push_back(mariadb("mariadb-ticket-pair-myisam",
                      "Flickr's ticket pair on two MariaDB servers (increment 2, offsets 1 and 2), "
                      "REPLACE INTO Tickets64 on MyISAM, alternating, failing over",
                      "Ticket server", "ticket-pair", "ticket-pair --engine myisam", IdTime::none,
                      b64, Ordering::none, true));
  s.push_back(mariadb("mariadb-ticket-pair-innodb",
                      "Flickr's ticket pair as above with the table on InnoDB (deadlocks under "
                      "concurrent REPLACE INTO; retried and counted)",
                      "Ticket server", "ticket-pair", "ticket-pair --engine innodb", IdTime::none,
                      b64, Ordering::none, true));
  s.push_back(mariadb("mariadb-ticket-update",
                      "One MariaDB server, one InnoDB row: UPDATE tickets SET id = "
                      "LAST_INSERT_ID(id + 1), then LAST_INSERT_ID()",
                      "Ticket server", "ticket-pair", "ticket-update --engine innodb",
                      IdTime::none, b64, Ordering::monotone_per_stream, false));
  add_postgres(s);
  // Redis 7.0 (Debian's redis-server) as a ticket server: one INCR per ID, INCRBY N per batch.
  s.push_back(on_server(ServerKind::redis, "redis-incr",
                        "Redis INCR on one key (INCRBY N for N IDs), a private redis-server",
                        "Redis INCR", "auto-increment", fmt::format("{} incr", kRedisAdapter),
                        IdTime::none, IdWidth::bits64, Ordering::monotone_per_stream, true));
  // Generators nobody here wrote, behind adapters/idbench-adapter (versions: Debian's python3;
  // the npm packages pinned in adapters/node/package-lock.json).
  s.push_back(adapter("python-uuid1", "Python 3 uuid.uuid1() (Debian's python3)", "UUIDv1",
                      "idbench-adapter python uuid1", IdTime::uuid, b128, Ordering::none, true));
  s.push_back(adapter("python-uuid4", "Python 3 uuid.uuid4() (Debian's python3)", "UUIDv4",
                      "idbench-adapter python uuid4", IdTime::none, b128, Ordering::none, false));
  s.push_back(adapter("node-uuid-v1", "npm uuid v1() on Debian's nodejs", "UUIDv1",
                      "idbench-adapter node uuid-v1", IdTime::uuid, b128, Ordering::none, false));
  s.push_back(adapter("node-uuid-v6", "npm uuid v6() on Debian's nodejs", "UUIDv6",
                      "idbench-adapter node uuid-v6", IdTime::uuid, b128, Ordering::k_sorted,
                      false));
  s.push_back(adapter("node-uuid-v7", "npm uuid v7() on Debian's nodejs", "UUIDv7",
                      "idbench-adapter node uuid-v7", IdTime::uuid, b128, Ordering::k_sorted,
                      true));
  s.push_back(adapter("node-ulid",
                      "npm ulid monotonicFactory(), as UUID text (top 48 bits Unix ms)", "ULID",
                      "idbench-adapter node ulid", IdTime::ulid, b128, Ordering::k_sorted, true));
  s.push_back(adapter("node-ksuid",
                      "npm ksuid KSUID.randomSync(), its first 16 of 20 bytes as UUID text "
                      "(seconds, then random)",
                      "KSUID", "idbench-adapter node ksuid", IdTime::ksuid, b128,
                      Ordering::k_sorted_by_tick, false));
  s.push_back(adapter("node-snowflake", "npm @sapphire/snowflake, Discord's epoch and layout",
                      "Snowflake", "idbench-adapter node snowflake", IdTime::layout, b64,
                      Ordering::k_sorted, false));
  s.back().exec.layout = "discord";
  // The same package as its README's first example leaves it (worker 0, process 1, whatever
  // the node id): two instances issue the same IDs in the same ms.
  s.push_back(adapter("node-snowflake-defaults",
                      "npm @sapphire/snowflake with its default worker and process ids, "
                      "Discord's epoch",
                      "Snowflake", "idbench-adapter node snowflake-defaults", IdTime::layout, b64,
                      Ordering::k_sorted, false));
  s.back().exec.layout = "discord";
  // The other npm Snowflake packages; each layout is 42 bits of Unix ms (their default epoch,
  // passed explicitly to nodejs-snowflake, whose own default is the instance's start).
  s.push_back(adapter("node-snowflake-id",
                      "npm snowflake-id generate(): 42-bit Unix ms, 10-bit mid (node id + 1), "
                      "12-bit seq",
                      "Snowflake", "idbench-adapter node snowflake-id", IdTime::layout, b64,
                      Ordering::k_sorted, false));
  s.back().exec.layout = "spare=0,ts=42,node=10,seq=12,epoch=0";
  s.push_back(adapter("node-nodejs-snowflake",
                      "npm nodejs-snowflake getUniqueID() (Rust in wasm): 42-bit Unix ms, 12-bit "
                      "instance, 10-bit seq",
                      "Snowflake", "idbench-adapter node nodejs-snowflake", IdTime::layout, b64,
                      Ordering::k_sorted, false));
  s.back().exec.layout = "spare=0,ts=42,node=12,seq=10,epoch=0";
  s.push_back(adapter("node-flake-idgen",
                      "npm flake-idgen next(), called again while it refuses: 42-bit Unix ms, "
                      "5-bit datacenter + 5-bit worker, 12-bit counter",
                      "Snowflake", "idbench-adapter node flake-idgen", IdTime::layout, b64,
                      Ordering::k_sorted, false));
  s.back().exec.layout = "spare=0,ts=42,node=5+5,seq=12,epoch=0";
  // The Go libraries Debian packages, behind idbench-go-adapter (built beside idbench from the
  // packages' sources by adapters/go; versions: the Debian packages). Every ID is UUID text.
  // Go reads the clock through the vDSO, so `chaos` (libfaketime) cannot move their clock.
  s.push_back(adapter("go-google-uuid-v1",
                      "Go github.com/google/uuid NewUUID() (golang-github-google-uuid-dev): v1, "
                      "the first interface's MAC as node",
                      "UUIDv1", "idbench-go-adapter google-uuid-v1", IdTime::uuid, b128,
                      Ordering::none, false));
  s.push_back(adapter("go-gofrs-uuid-v1",
                      "Go github.com/gofrs/uuid NewV1() (golang-github-gofrs-uuid-dev): v1, the "
                      "first interface's MAC as node",
                      "UUIDv1", "idbench-go-adapter gofrs-uuid-v1", IdTime::uuid, b128,
                      Ordering::none, false));
  s.push_back(adapter("go-gofrs-uuid-v6",
                      "Go github.com/gofrs/uuid NewV6(), draft 03 (golang-github-gofrs-uuid-dev): "
                      "the v1 clock state, 48 random bits per UUID",
                      "UUIDv6", "idbench-go-adapter gofrs-uuid-v6", IdTime::uuid, b128,
                      Ordering::k_sorted, false));
  s.push_back(adapter("go-gofrs-uuid-v7",
                      "Go github.com/gofrs/uuid NewV7(), draft 03 (golang-github-gofrs-uuid-dev): "
                      "Unix ms and 74 random bits, no counter",
                      "UUIDv7", "idbench-go-adapter gofrs-uuid-v7", IdTime::uuid, b128,
                      Ordering::k_sorted_by_tick, false));
  s.push_back(adapter("go-oklog-ulid",
                      "Go github.com/oklog/ulid Monotonic entropy (golang-github-oklog-ulid-dev), "
                      "as UUID text (top 48 bits Unix ms)",
                      "ULID", "idbench-go-adapter oklog-ulid", IdTime::ulid, b128,
                      Ordering::k_sorted, false));
  // 96 bits: its 12 bytes, then 4 zero bytes; its top 32 bits are Unix seconds (IdTime::xid).
  s.push_back(adapter("go-rs-xid",
                      "Go github.com/rs/xid New() (golang-github-rs-xid-dev): 96 bits (Unix s, "
                      "machine, pid, counter) + 32 zero bits as UUID text",
                      "xid", "idbench-go-adapter rs-xid", IdTime::xid, b128,
                      Ordering::k_sorted_by_tick, false));
  s.push_back(adapter("go-segmentio-ksuid",
                      "Go github.com/segmentio/ksuid NewRandom() "
                      "(golang-github-segmentio-ksuid-dev), its first 16 of 20 bytes as UUID text",
                      "KSUID", "idbench-go-adapter segmentio-ksuid", IdTime::ksuid, b128,
                      Ordering::k_sorted_by_tick, false));
  return s;
}

// The directory of the running binary (every program CMake builds lands in one bin dir).
std::string binary_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(IDBENCH_BINARY_DIR) : exe.parent_path().string();
}

std::string command_word(const std::string& word) {
  if (word.find_first_of(" \t'\"\\") == std::string::npos) return word;
  std::string q = "\"";
  for (const char c : word) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + '"';
}

// The command with its first word made absolute: a program built beside this binary or in
// this build's bin dir (the MariaDB adapter), else a file in adapters_dir().
std::string resolve_command(const std::string& command) {
  const auto space = command.find(' ');
  const std::string first = command.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : command.substr(space);
  for (const std::string& dir : {binary_dir(), std::string(IDBENCH_BINARY_DIR)}) {
    const std::string path = dir + "/" + first;
    if (::access(path.c_str(), X_OK) == 0) return command_word(path) + rest;
  }
  return command_word(adapters_dir() + "/" + first) + rest;
}

}  // namespace

std::span<const RealSystem> real_systems() {
  static const std::vector<RealSystem> systems = make_systems();
  return systems;
}

const RealSystem* find_real_system(std::string_view name) {
  for (const RealSystem& s : real_systems()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string adapters_dir() {
  if (const char* env = std::getenv("IDBENCH_ADAPTERS"); env && *env) return env;
  if (fs::is_directory(IDBENCH_SOURCE_ADAPTERS)) return IDBENCH_SOURCE_ADAPTERS;
  return binary_dir() + "/adapters";
}

external::ExecSpec null_adapter_spec() {
  return spec(resolve_command(fmt::format("{} null", kMariadbAdapter)), IdTime::none,
              IdWidth::bits64, Ordering::monotone_per_stream);
}

const char* socket_env(ServerKind kind) {
  switch (kind) {
    case ServerKind::mariadb:
      return "IDBENCH_MARIADB_SOCKETS";
    case ServerKind::postgres:
      return "IDBENCH_POSTGRES_HOST";
    case ServerKind::redis:
      return "IDBENCH_REDIS_SOCKET";
    case ServerKind::none:
      break;
  }
  return nullptr;
}

struct RunningSystem::State {
  const RealSystem& system;
  std::vector<std::unique_ptr<Server>> servers;
  std::vector<ServerSettings> settings;
};

RunningSystem::RunningSystem(const RealSystem& system, const ServerSettings& base)
    : state_(std::make_unique<State>(State{system, {}, {}})) {
  for (int i = 0; i < system.servers; ++i) {
    state_->settings.push_back(system.server_settings(i, base));
    state_->servers.push_back(start_server(system.server_kind, state_->settings.back()));
  }
}

RunningSystem::~RunningSystem() = default;

const RealSystem& RunningSystem::system() const { return state_->system; }

external::ExecSpec RunningSystem::exec_spec() const {
  external::ExecSpec e = state_->system.exec;
  e.command = resolve_command(e.command);
  std::string sockets;
  for (const auto& s : state_->servers) sockets += (sockets.empty() ? "" : ",") + s->socket();
  if (!sockets.empty()) {
    e.env.push_back(fmt::format("{}={}", socket_env(state_->system.server_kind), sockets));
  }
  e.env.push_back("IDBENCH_ADAPTERS=" + adapters_dir());
  return e;
}

std::vector<Server*> RunningSystem::servers() {
  std::vector<Server*> out;
  for (const auto& s : state_->servers) out.push_back(s.get());
  return out;
}

const ServerSettings& RunningSystem::settings(std::size_t server) const {
  return state_->settings.at(server);
}

std::string RunningSystem::describe() {
  return state_->servers.empty() ? "" : state_->servers.front()->describe();
}

}  // namespace idbench::real
