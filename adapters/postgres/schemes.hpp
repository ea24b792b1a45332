// schemes.hpp — the ID schemes on PostgreSQL as data: the set-up each needs (idempotent, run
// once per connection under an advisory lock, so concurrent clients do not race) and the one
// statement that hands out N IDs in one round trip.
//
//   Scheme s = parse_scheme({"sequence", "--cache", "50"});   // throws line::UsageError
//   s.statement(1);      // "SELECT nextval('ids_cache50')"
//   s.statement(1000);   // "SELECT nextval('ids_cache50') FROM generate_series(1, 1000)"
//
// Thread safety: immutable data.
#pragma once

#include <string>
#include <vector>

namespace idbench::postgres_adapter {

struct Scheme {
  std::string name;                // "sequence --cache 50"
  std::vector<std::string> setup;  // idempotent statements, in order
  std::string one;                 // the statement for one ID: what a user runs
  // The select list that makes one ID, for N of them in one statement (a SELECT or an
  // INSERT … SELECT over generate_series): `batch` with {n} replaced.
  std::string batch;
  std::string statement(unsigned long n) const;
};

extern const char* const kUsage;
// argv after the program name. Throws line::UsageError.
Scheme parse_scheme(const std::vector<std::string>& args);

}  // namespace idbench::postgres_adapter
