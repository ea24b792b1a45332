// exit_codes.hpp — the exit statuses every idbench command shares (README, "The CLI"). Here so
// that the CLI and the subsystems it drives both see them without importing each other.
#pragma once

namespace idbench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFound = 1;        // check found duplicates; a verdict failed
inline constexpr int kExitBadInput = 2;     // unknown flag, bad value, unreadable/malformed input
inline constexpr int kExitRefused = 3;      // a generator refused (clock, bound, lifetime)
inline constexpr int kExitMissingTool = 4;  // a real engine's package is not installed
inline constexpr int kExitInterrupted = 130;

}  // namespace idbench
