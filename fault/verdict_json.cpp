// verdict_json.cpp — a fault::Verdict as JSON (see verdict_json.hpp).
#include "fault/verdict_json.hpp"

namespace idbench::fault {

nlohmann::ordered_json to_json(const Verdict& v) {
  return {{"verdict", name_of(v.outcome)},
          {"passed", v.passed()},
          {"evidence", v.evidence},
          {"findings", v.findings}};
}

}  // namespace idbench::fault
