// run_text.hpp — a chaos run as text, for a person: the verdict line, the figures behind it,
// refusal messages, duplicate examples, findings, the fault check and the promise. The same run
// as JSON is run_json.hpp's.
//
// Thread safety: a pure function.
#pragma once

#include <string>

#include "chaos/driver.hpp"

namespace idbench::chaos {

std::string to_text(const RunResult& r);

}  // namespace idbench::chaos
