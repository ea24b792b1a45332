// faults_text.cpp — a fault run as text, for a person: its verdict line and one per part;
// faults_json.cpp writes the same run as JSON. Formats only.
#include <fmt/format.h>

#include "real/faults.hpp"

namespace idbench::real {

std::string to_text(const FaultRun& run) {
  std::string out = fmt::format("{}: {} — {}\n", run.scenario, fault::name_of(run.verdict.outcome),
                                run.verdict.evidence);
  for (const FaultPart& p : run.parts) {
    const std::string who = p.label.empty() ? p.system : p.system + ", " + p.label;
    out +=
        fmt::format("  {}: {} — {}\n", who, fault::name_of(p.verdict.outcome), p.verdict.evidence);
    out += fmt::format("    settings: {}\n", p.settings);
    for (const std::string& f : p.verdict.findings) out += fmt::format("    {}\n", f);
  }
  return out;
}

}  // namespace idbench::real
