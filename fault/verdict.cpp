// verdict.cpp — the outcomes' words and which of them pass (see verdict.hpp).
#include "fault/verdict.hpp"

namespace idbench::fault {

std::string_view name_of(Outcome o) {
  switch (o) {
    case Outcome::kept:
      return "kept";
    case Outcome::available:
      return "available";
    case Outcome::caught:
      return "caught";
    case Outcome::broken:
      return "BROKEN";
    case Outcome::duplicates:
      return "DUPLICATES";
    case Outcome::unavailable:
      return "unavailable";
    case Outcome::no_evidence:
      return "no evidence";
    case Outcome::fault_not_applied:
      return "fault not applied";
    case Outcome::not_verified:
      return "not verified";
    case Outcome::machine_starved:
      return "machine starved";
  }
  return "unknown";
}

bool passes(Outcome o) {
  return o == Outcome::kept || o == Outcome::available || o == Outcome::caught;
}

}  // namespace idbench::fault
