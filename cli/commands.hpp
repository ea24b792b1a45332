// commands.hpp — the subcommands of `idbench`, each registered on the CLI11 app by its own
// file. A command reports its exit status by throwing `CLI::RuntimeError(code)`; bad input
// is an idbench::Error (exit 2, see main.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace idbench::cli {

// Exit statuses shared by every command, documented in the README.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFound = 1;     // check: duplicates (or, strict, order violations)
inline constexpr int kExitBadInput = 2;  // unknown flag, bad value, unreadable or malformed file
inline constexpr int kExitRefused = 3;   // a generator refused (clock, bound, lifetime)

void add_list_command(CLI::App& app);
void add_decode_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_locality_command(CLI::App& app);

}  // namespace idbench::cli
