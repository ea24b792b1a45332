// verdict.cpp — the outcomes' words and which of them pass (see verdict.hpp).
#include "fault/verdict.hpp"

#include "plumbing/enum_names.hpp"

namespace idbench::fault {
namespace {

constexpr std::array<plumbing::Named<Outcome>, kOutcomes.size()> kOutcomeNames = {{
    {Outcome::kept, "kept"},
    {Outcome::available, "available"},
    {Outcome::caught, "caught"},
    {Outcome::broken, "BROKEN"},
    {Outcome::duplicates, "DUPLICATES"},
    {Outcome::unavailable, "unavailable"},
    {Outcome::no_evidence, "no evidence"},
    {Outcome::fault_not_applied, "fault not applied"},
    {Outcome::not_verified, "not verified"},
    {Outcome::machine_starved, "machine starved"},
}};
static_assert(plumbing::one_to_one(kOutcomeNames));

}  // namespace

std::string_view name_of(Outcome o) { return plumbing::name_in(kOutcomeNames, o, "unknown"); }

bool passes(Outcome o) {
  return o == Outcome::kept || o == Outcome::available || o == Outcome::caught;
}

}  // namespace idbench::fault
