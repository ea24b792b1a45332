// id_file_fuzz.cpp — fuzz target for the text ID files `check` reads (check/id_file.hpp): the
// 64-bit decimal and UUID line forms, width from the first line.
//
// Properties: a rejection is an IdFileError with one clean line. An accepted file holds one ID
// per line, and writing its IDs back with to_text reads back as the same width and IDs.
#include <algorithm>
#include <optional>

#include "check/id_file.hpp"
#include "fuzz/fuzz_support.hpp"

namespace idbench::fuzz {
namespace {

std::size_t lines_in(std::string_view text) {
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

}  // namespace

void fuzz_one(const Input& input) {
  const std::string_view text = input.text;
  const std::string& path = input.file();
  std::optional<IdStream> ids;
  if (!expect_typed<IdFileError>("read_id_file",
                                 [&] { ids = read_id_file(path, FileFormat::text); })) {
    return;
  }
  require(ids->size() == lines_in(text), "read_id_file read {} IDs from {} lines: {}", ids->size(),
          lines_in(text), one_line(text.substr(0, 200)));
  std::string written;
  for (std::size_t i = 0; i < ids->size(); ++i) written += to_text(ids->at(i), ids->width) + "\n";
  std::optional<IdStream> back;
  const bool ok = expect_typed<IdFileError>("read_id_file (written back)", [&] {
    back = read_id_file(echo_file(written), FileFormat::text);
  });
  require(ok && back->width == ids->width && back->size() == ids->size(),
          "IDs read from {} do not read back from {}", one_line(text.substr(0, 200)),
          one_line(written.substr(0, 200)));
  for (std::size_t i = 0; i < ids->size(); ++i) {
    require(back->at(i) == ids->at(i), "ID {} of {} does not round-trip", i,
            one_line(text.substr(0, 200)));
  }
}

}  // namespace idbench::fuzz
