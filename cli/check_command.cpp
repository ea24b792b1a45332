// idbench check — duplicates across files and order violations within each.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "check/checker.hpp"
#include "cli/commands.hpp"

namespace idbench::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> files;
  std::string format = "text";
  int id_bits = 64;
  bool strict_order = false;
  bool json = false;
};

void run_check(const CheckArgs& args) {
  const auto began = std::chrono::steady_clock::now();
  const FileFormat format = args.format == "binary" ? FileFormat::binary : FileFormat::text;
  std::vector<IdStream> streams;
  for (const auto& path : args.files) {
    streams.push_back(
        read_id_file(path, format, args.id_bits == 128 ? IdWidth::bits128 : IdWidth::bits64));
    if (streams.back().size() > 0 && streams.back().width != streams.front().width) {
      throw IdFileError(fmt::format("{}: holds {}-bit IDs but {} holds {}-bit IDs", path,
                                    streams.back().width == IdWidth::bits64 ? 64 : 128,
                                    streams.front().name,
                                    streams.front().width == IdWidth::bits64 ? 64 : 128));
    }
  }
  const CheckReport report = check_streams(streams);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const IdWidth width = streams.empty() ? IdWidth::bits64 : streams.front().width;

  if (args.json) {
    nlohmann::ordered_json out;
    out["ids"] = report.total;
    out["duplicates"] = report.duplicates;
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
    out["seconds"] = seconds;
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print(
        "{} IDs in {} stream{}: {} duplicate{}, {} order violation{} ({:.2f} s, {:.1f} M "
        "IDs/s)\n",
        report.total, streams.size(), streams.size() == 1 ? "" : "s", report.duplicates,
        report.duplicates == 1 ? "" : "s", report.order_violations(),
        report.order_violations() == 1 ? "" : "s", seconds,
        seconds > 0 ? report.total / seconds / 1e6 : 0.0);
    for (const auto& ex : report.examples) {
      std::string places;
      for (const auto& p : ex.places) {
        places += fmt::format(" {}:{}", streams[p.stream].name, p.index + 1);
      }
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
      "check", "Find duplicates across files and order violations within each file");
  cmd->add_option("files", args->files, "ID files; each is one stream")->required();
  cmd->add_option("--format", args->format, "text or binary")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "binary"}));
  cmd->add_option("--id-bits", args->id_bits, "width of binary IDs: 64 or 128")
      ->capture_default_str()
      ->check(CLI::IsMember({64, 128}));
  cmd->add_flag("--strict-order", args->strict_order, "exit 1 on an order violation too");
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->callback([args] { run_check(*args); });
}

}  // namespace idbench::cli
