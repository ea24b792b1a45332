// schemes.cpp — the PostgreSQL ID schemes: sequences (CACHE 1, CACHE N), an IDENTITY column,
// Instagram's next_id() as published, and the UUID functions of uuid-ossp and the core.
#include "adapters/postgres/schemes.hpp"

#include <string>

#include "adapters/line/line_server.hpp"

namespace idbench::postgres_adapter {

const char* const kUsage =
    "usage: idbench-postgres-adapter sequence [--cache N] | identity | instagram | uuid-v1 | "
    "uuid-v1mc | gen-random-uuid";

namespace {

std::string replaced(std::string text, const std::string& n) {
  for (auto at = text.find("{n}"); at != std::string::npos; at = text.find("{n}", at)) {
    text.replace(at, 3, n);
  }
  return text;
}

// A SELECT of `expr` per ID.
Scheme selecting(std::string name, std::vector<std::string> setup, const std::string& expr) {
  return {std::move(name), std::move(setup), "SELECT " + expr,
          "SELECT " + expr + " FROM generate_series(1, {n})"};
}

// Instagram's function as "Sharding & IDs at Instagram" (Instagram Engineering, 2012)
// publishes it: 41 bits of ms since 1314220021721, shard 5 in 13 bits, nextval % 1024 in 10.
// The post's `%%` is its blog's escaping of `%`.
constexpr const char* kInstagramNextId = R"(
CREATE OR REPLACE FUNCTION insta5.next_id(OUT result bigint) AS $$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
BEGIN
    SELECT nextval('insta5.table_id_seq') % 1024 INTO seq_id;
    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
$$ LANGUAGE PLPGSQL)";

unsigned long cache_of(const std::vector<std::string>& args) {
  if (args.size() == 1) return 1;
  bool ok = args.size() == 3 && args[1] == "--cache" && !args[2].empty() && args[2].size() <= 6;
  for (const char c : ok ? args[2] : "") ok = ok && c >= '0' && c <= '9';
  const unsigned long cache = ok ? std::stoul(args[2]) : 0;
  if (cache < 1) throw line::UsageError(std::string("bad sequence options; ") + kUsage);
  return cache;
}

}  // namespace

std::string Scheme::statement(unsigned long n) const {
  return n == 1 ? one : replaced(batch, std::to_string(n));
}

Scheme parse_scheme(const std::vector<std::string>& args) {
  const std::string first = args.empty() ? "" : args[0];
  if (first == "sequence") {
    const std::string cache = std::to_string(cache_of(args));
    const std::string seq = "ids_cache" + cache;
    return selecting("sequence --cache " + cache,
                     {"CREATE SEQUENCE IF NOT EXISTS " + seq + " CACHE " + cache},
                     "nextval('" + seq + "')");
  }
  if (args.size() != 1) throw line::UsageError(kUsage);
  if (first == "identity") {
    return {"identity",
            {"CREATE TABLE IF NOT EXISTS ids_identity "
             "(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)"},
            "INSERT INTO ids_identity DEFAULT VALUES RETURNING id",
            "INSERT INTO ids_identity SELECT FROM generate_series(1, {n}) RETURNING id"};
  }
  if (first == "instagram") {
    return selecting("instagram",
                     {"CREATE SCHEMA IF NOT EXISTS insta5",
                      "CREATE SEQUENCE IF NOT EXISTS insta5.table_id_seq", kInstagramNextId},
                     "insta5.next_id()");
  }
  const std::string ossp = "CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"";
  if (first == "uuid-v1") return selecting("uuid-v1", {ossp}, "uuid_generate_v1()");
  if (first == "uuid-v1mc") return selecting("uuid-v1mc", {ossp}, "uuid_generate_v1mc()");
  if (first == "gen-random-uuid") return selecting("gen-random-uuid", {}, "gen_random_uuid()");
  throw line::UsageError(kUsage);
}

}  // namespace idbench::postgres_adapter
