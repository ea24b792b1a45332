// shared_template.hpp — one initialised data directory that every process of a test run
// copies instead of initialising its own (mariadb-install-db or initdb: seconds; a copy: a
// fraction of one).
//
//   const char* dir = std::getenv(kPostgresTemplateEnv);   // set by the tests' presets only
//   fill_from_shared_template({.dir = dir, .stamp = program_stamp(initdb) + options},
//                             data, [&] { run initdb into data; }, nobody);
//
// The first process finds no template (or one stamped for another program or other options):
// it initialises its own data directory with `make`, then keeps a copy of it as the template,
// stamped. The others copy the template. All of it under an exclusive flock of <dir>.lock, so
// a process waits while another makes the template rather than making its own; the copy is
// written to <dir>.tmp-<pid> and renamed into place, so a process killed meanwhile leaves no
// half template (the next maker removes what it left). Unset, a caller does what it always
// did: its own initialisation each time.
//
// Thread safety: safe across processes and threads (the flock; a rename is atomic).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "plumbing/child_process.hpp"

namespace idbench::plumbing {

// What a template was made by and for: a program's path, size and modification time (another
// build or version of it is another stamp), one line.
std::string program_stamp(const std::string& program);

struct SharedTemplate {
  std::string dir;    // the template; <dir>/data is what is copied
  std::string stamp;  // what it must have been made for (program_stamp and the options)
};

// Makes `data` (which must not exist yet): a copy of the template, given to `owner` when set
// (modes as the template's); or, when there is no template stamped `t.stamp`, by `make` (which
// must create `data`), then copied as the new template. Throws Error, or what `make` throws.
void fill_from_shared_template(const SharedTemplate& t, const std::string& data,
                               const std::function<void()>& make,
                               const std::optional<RunAs>& owner);

}  // namespace idbench::plumbing
