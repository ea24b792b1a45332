// idbench check — duplicates across files and order violations within each.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "check/checker.hpp"
#include "cli/commands.hpp"
#include "plumbing/whole_number.hpp"

namespace idbench::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> files;
  std::string format = "text";
  int id_bits = 0;  // 0: text from each file's first line, binary 64
  std::uint64_t max_memory = 0;  // 0: default_memory_budget()
  bool strict_order = false;
  bool json = false;
};

std::string plural(std::uint64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

void run_check(const CheckArgs& args) {
  const auto began = std::chrono::steady_clock::now();
  CheckOptions options;
  options.format = args.format == "binary" ? FileFormat::binary : FileFormat::text;
  if (args.id_bits != 0) options.width = args.id_bits == 128 ? IdWidth::bits128 : IdWidth::bits64;
  options.memory_budget = args.max_memory;
  const CheckReport report = check_files(args.files, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const IdWidth width = report.width;
  const auto& streams = report.streams;

  if (args.json) {
    nlohmann::ordered_json out;
    out["ids"] = report.total;
    out["duplicates"] = report.duplicates;
    out["duplicated_values"] = report.duplicated_values;
    out["order_violations"] = report.order_violations();
    for (const auto& ex : report.examples) {
      nlohmann::ordered_json e{{"id", to_text(ex.id, width)}, {"occurrences", ex.occurrences}};
      for (const auto& p : ex.places) {
        e["places"].push_back({{"file", streams[p.stream].name}, {"line", p.index + 1}});
      }
      out["examples"].push_back(e);
    }
    for (const auto& s : report.streams) {
      out["streams"].push_back(
          {{"file", s.name}, {"ids", s.count}, {"order_violations", s.order_violations}});
    }
    out["spilled_to_disk"] = report.spilled;
    out["seconds"] = seconds;
    fmt::print("{}\n", out.dump(2));
  } else {
    const std::string dups =
        report.duplicates == 0
            ? plural(0, "duplicate")
            : fmt::format("{} (extra copies of {})", plural(report.duplicates, "duplicate"),
                          plural(report.duplicated_values, "value"));
    fmt::print("{} IDs in {}: {}, {} ({:.2f} s, {:.1f} M IDs/s)\n", report.total,
               plural(streams.size(), "stream"), dups,
               plural(report.order_violations(), "order violation"), seconds,
               seconds > 0 ? report.total / seconds / 1e6 : 0.0);
    for (const auto& ex : report.examples) {
      std::string places;
      for (const auto& p : ex.places) {
        places += fmt::format(" {}:{}", streams[p.stream].name, p.index + 1);
      }
      if (ex.occurrences > ex.places.size()) places += " ...";
      fmt::print("  duplicate {} ×{} at{}\n", to_text(ex.id, width), ex.occurrences, places);
    }
    for (const auto& s : report.streams) {
      if (s.order_violations > 0) {
        fmt::print("  {}: {} order violation{}, first at line {}\n", s.name, s.order_violations,
                   s.order_violations == 1 ? "" : "s", s.first_violation + 1);
      }
    }
  }
  if (report.duplicates > 0 || (args.strict_order && report.order_violations() > 0)) {
    throw CLI::RuntimeError(kExitFound);
  }
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Find duplicates across files and order violations within each file. Duplicates are "
      "counted as extra copies (a value seen 3 times counts 2); the number of distinct "
      "duplicated values is printed beside them. Above --max-memory the IDs are partitioned "
      "to temporary files, so any size can be checked.");
  cmd->add_option("files", args->files, "ID files; each is one stream")->required();
  cmd->add_option("--format", args->format, "text or binary")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "binary"}));
  cmd->add_option("--id-bits", args->id_bits,
                  "64 or 128 (default: text from each file's first line, where 32 decimal "
                  "digits are refused as ambiguous; binary 64)")
      ->check(CLI::IsMember({64, 128}));
  cmd->add_option("--max-memory", args->max_memory,
                  "bytes the check may hold in memory (default: 1/4 of MemAvailable, within "
                  "ulimit -v)")
      ->check(plumbing::WholeNumber(std::uint64_t{1} << 16));
  cmd->add_flag("--strict-order", args->strict_order, "exit 1 on an order violation too");
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->callback([args] { run_check(*args); });
}

}  // namespace idbench::cli
