// server_files.hpp — what every kind of project-started server does with its files: the tail
// of its log, its pid from its pid file, cold copies of its data directory.
//
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <string>

#include "plumbing/db_server.hpp"

namespace idbench::real {

// The last `lines` lines of the text file at `path` (empty when it is missing).
std::string file_tail_lines(const std::string& path, std::size_t lines);
// The pid in `path` when `running`; else, or when the file holds none, throws Error naming
// `what` and the file.
int pid_from_file(const std::string& path, bool running, const std::string& what);
// Replaces the directory `data` with a copy of `snapshot`; throws Error when there is no
// such snapshot.
void replace_with_copy(const std::string& data, const std::string& snapshot);
// A cold copy of a server's <dir>/data, for the kinds whose files live there (MariaDB, Redis):
// stops it, copies to <dir>/snapshot-<++count>, starts it again if it was running; returns the
// copy's path.
std::string cold_snapshot(plumbing::DbServer& db, int& count);
// Puts a cold copy back into <dir>/data; `who` names the server in the Error thrown when it is
// still running.
void restore_stopped(plumbing::DbServer& db, const std::string& who, const std::string& snapshot);

}  // namespace idbench::real
