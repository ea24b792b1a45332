// matrix.hpp — the chaos matrix: every scenario × variant × policy, one run each, written to
// one JSON file that is always whole (temp file + rename after every cell, `complete: false`
// until the last), with progress (cell i of N, what runs, time left) on a FILE*.
//
// The matrix data — the one place idbench chaos names variants — is the list:
// {mutex, cas, thread-local, uuidv7} × every policy × every scenario, plus
// restart-during-regression again with a persisted high-water mark, to show the fix beside the
// failure. `quick` keeps two variants (cas: the lock-free Snowflake, uuidv7: the UUID) and
// halves every scenario's timeline, for the default suite.
//
// Thread safety: runs cells one at a time from the calling thread (see driver.hpp).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace idbench::chaos {

struct MatrixConfig {
  std::string out_path;
  bool quick = false;
  std::vector<std::string> scenarios;  // empty: every scenario
  std::vector<std::string> variants;   // empty: the matrix data's
  std::vector<std::string> policies;   // empty: every policy
  int nodes = 2;
  unsigned threads = 2;
  double rate = 40'000;
  double time_scale = 0;  // 0: 1.0, or 0.5 when quick
  bool persist_restart = true;
  std::string commit;
  std::string node_binary;
};

// The variants the matrix runs by default (the matrix data).
std::vector<std::string> default_matrix_variants(bool quick);

// Returns the exit status: 0 when every cell kept its promise, 1 when one did not or could
// not run.
int run_matrix(const MatrixConfig& config, std::FILE* progress);

}  // namespace idbench::chaos
