// commands.hpp — the subcommands of `idbench`, each registered on the CLI11 app by its own
// file. A command reports its exit status by throwing `CLI::RuntimeError(code)`; bad input
// is an idbench::Error (exit 2, see main.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "plumbing/exit_codes.hpp"

namespace idbench::cli {

// The exit statuses live in plumbing/exit_codes.hpp (shared with the subsystems); these names
// keep compiling for code that spells them idbench::cli::kExit*.
using idbench::kExitBadInput;
using idbench::kExitFound;
using idbench::kExitInterrupted;
using idbench::kExitMissingTool;
using idbench::kExitOk;
using idbench::kExitRefused;

void add_list_command(CLI::App& app);
void add_decode_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_locality_command(CLI::App& app);
void add_real_command(CLI::App& app);
void add_real_chaos_command(CLI::App& app);  // real_chaos_command.cpp
void add_worker_ids_command(CLI::App& app);  // worker_ids_command.cpp

}  // namespace idbench::cli
