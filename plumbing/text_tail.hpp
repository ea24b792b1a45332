// text_tail.hpp — the end of a process's output, for a one-line error message: the cause of a
// failed start-up or a node's death is in its last lines ("[ERROR] Can not bind…", "node: no
// such flag"), and the file holding the whole output often goes with the run's directory.
//
//   text_tail("starting\n  [ERROR] Can not bind  \n\n");      // "starting | [ERROR] Can not bind"
//   text_tail("");                                            // "" (the caller says "no message")
//
// The last `lines` non-blank lines, each trimmed of spaces, tabs and carriage returns, joined
// by " | " (one line: idbench::Error would escape a newline as "\n"); when longer than `chars`,
// only its last `chars` bytes, after "…" (never starting inside a UTF-8 character).
//
// Thread safety: a pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idbench::plumbing {

struct TailLimits {
  std::size_t lines = 3;    // a start-up log's cause and the two lines before it
  std::size_t chars = 400;  // the tail of an error message, not the log
};

// Empty when `text` has no non-blank line.
std::string text_tail(std::string_view text, TailLimits limits = {});

}  // namespace idbench::plumbing
