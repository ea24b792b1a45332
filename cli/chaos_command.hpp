// chaos_command.hpp — `idbench chaos`: clock faults under libfaketime, one run or the matrix.
// A thin command line over the chaos library (chaos/); exit codes from plumbing/exit_codes.hpp.
//
//   idbench chaos --list
//   idbench chaos --scenario ntp-step-back --variant cas --policy refuse --nodes 2 --json
//   idbench chaos --scenario restart-during-regression --variant mutex --persist /tmp/marks
//   idbench chaos --matrix --out reports/latest/chaos.json [--quick]
//
// Exit status: 0 when every promise was kept (duplicates from `unsafe`, a restart without
// --persist or a node-id collision are expected and reported as caught), 1 when one was
// broken (a duplicate the configuration promises against, a wrapped timestamp, a lifetime
// crossed without a refusal naming the last date) or the run is no evidence (a node issued
// no ID, or none before or after a fault), 2 on bad input or a harness failure, 130 when
// interrupted.
//
// The nodes are a separate binary, idbench-chaos-node, found beside the running executable:
// it is the process libfaketime is preloaded into, so it holds nothing but a generator, its
// threads and a writer; its stdin/stdout protocol is not a user-facing command.
#pragma once

#include <CLI/CLI.hpp>

namespace idbench::cli {

void add_chaos_command(CLI::App& app);

}  // namespace idbench::cli
