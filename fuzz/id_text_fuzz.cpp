// id_text_fuzz.cpp — fuzz target for one ID as text (check/id_text.hpp): the width rule, the
// 64-bit decimal and UUID forms, and the reason a text is not an ID.
//
// Properties: the width inferred for a text is one it parses as; a text it cannot place gets a
// problem that is one clean line. For each width, an accepted text means an ID whose to_text
// parses back to it (a 64-bit one is 1..20 digits and nothing else); a refused one gets an
// explanation that is one clean line. quote_text is always one clean line.
#include <algorithm>

#include "check/id_text.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

void check_width(std::string_view text, IdWidth width) {
  const auto id = parse_id_text(text, width);
  if (!id) {
    const std::string why = explain_bad_id(text, width);
    const std::string defect = message_defect(why);
    require(defect.empty(), "explain_bad_id of {} is not one clean line ({}): {}", one_line(text),
            defect, one_line(why));
    return;
  }
  if (width == IdWidth::bits64) {
    require(!text.empty() && text.size() <= 20 &&
                std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }),
            "parse_id_text accepted {} as a 64-bit ID", one_line(text));
  }
  const std::string written = to_text(*id, width);
  require(parse_id_text(written, width) == id, "{} read as {} does not round-trip", one_line(text),
          written);
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  const WidthGuess guess = infer_id_width(text);
  if (guess.width) {
    require(parse_id_text(text, *guess.width).has_value(),
            "infer_id_width places {} but parse_id_text refuses it", one_line(text));
  } else {
    const std::string defect = message_defect(guess.problem);
    require(defect.empty(), "infer_id_width's problem with {} is not one clean line ({}): {}",
            one_line(text), defect, one_line(guess.problem));
  }
  check_width(text, IdWidth::bits64);
  check_width(text, IdWidth::bits128);
  const std::string quoted = quote_text(text);
  require(message_defect(quoted).empty(), "quote_text of {} gives {}", one_line(text),
          one_line(quoted));
}

}  // namespace idbench::fuzz
