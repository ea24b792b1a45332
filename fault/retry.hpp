// retry.hpp — the one rule for a run that proves nothing about the system because of the
// machine: it is played again, a bounded number of times, and why each earlier attempt was set
// aside is kept beside the result. The chaos matrix plays a built-in cell again when it has no
// evidence (a node that issued nothing before a fault: the machine was slow); real-chaos plays
// a part again when the machine starved its clients.
//
//   const fault::Retried<CellOutcome> r = fault::play_while_spoiled(
//       [&] { return run_cell_of(plan, c); },
//       [](const CellOutcome& o) -> std::optional<std::string> { ...why, or nullopt... },
//       1);
//   r.result;      // the last attempt's
//   r.set_aside;   // why each earlier attempt proved nothing, in order
//
// Thread safety: a pure function of its arguments; it runs `play` on the calling thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace idbench::fault {

template <class R>
struct Retried {
  R result;
  std::vector<std::string> set_aside;  // why each earlier attempt was played again
  // Whether the last attempt was spoiled too (every attempt was).
  bool spoiled = false;
};

// Plays `play` (R()), and again while `spoiled(result)` says why that result proves nothing
// about the system (std::optional<std::string>; nullopt: it does), `retries` more times at
// most. `on_spoiled(why, attempt, last)` is told of each spoiled attempt (1-based; `last`: no
// attempt follows), so that a run can say it as it happens.
template <class Play, class Spoiled, class OnSpoiled>
auto play_while_spoiled(Play play, Spoiled spoiled, int retries, OnSpoiled on_spoiled)
    -> Retried<decltype(play())> {
  Retried<decltype(play())> r{play(), {}, false};
  for (int attempt = 1;; ++attempt) {
    std::optional<std::string> why = spoiled(r.result);
    if (!why) return r;
    const bool last = attempt > retries;
    on_spoiled(*why, attempt, last);
    r.set_aside.push_back(std::move(*why));
    if (last) {
      r.spoiled = true;
      return r;
    }
    r.result = play();
  }
}

template <class Play, class Spoiled>
auto play_while_spoiled(Play play, Spoiled spoiled, int retries) -> Retried<decltype(play())> {
  return play_while_spoiled(std::move(play), std::move(spoiled), retries,
                            [](const std::string&, int, bool) {});
}

}  // namespace idbench::fault
