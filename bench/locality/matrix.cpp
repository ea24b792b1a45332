// matrix.cpp — running the default locality matrix and keeping its JSON current (matrix.hpp).
#include "bench/locality/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "plumbing/child_process.hpp"
#include "bench/locality/run_json.hpp"
#include "bench/locality/validate.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench::locality {

namespace {

using MonoClock = std::chrono::steady_clock;  // durations on the monotonic clock

std::string minutes(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return s < 60 ? fmt::format("{}s", s) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

// A matrix stream differs from another only in these fields (plan_matrix), so the label names it.
std::string stream_label(const StreamSpec& s) {
  if (s.variant.empty()) return fmt::format("{} bigint", name_of(s.synthetic));
  return fmt::format("{}, {} writer{}, {}/ms{}", s.variant, s.writers, s.writers == 1 ? "" : "s",
                     s.rate, s.arrival == Arrival::poisson ? " poisson" : "");
}

std::string label_of(const RunSpec& r) {
  return fmt::format("{}, {} B payload", stream_label(r.stream), r.payload_bytes);
}


// The document, rewritten whole after every step (temp + rename), its runs in the plan's order
// whatever order they finish in. A target that is not a regular file (/dev/stdout, a FIFO) is
// written through once, at the end: a stream cannot be rewritten.
class MatrixFile {
 public:
  MatrixFile(std::string path, const std::vector<int>& row_sizes, int decision_payload_bytes,
             std::size_t runs)
      : path_(std::move(path)), runs_(runs) {
    doc_ = {{"context", context_json()},
            {"complete", false},
            {"row_sizes", row_sizes},
            {"decision_payload_bytes", decision_payload_bytes},
            {"matrix", nlohmann::json::array()}};
    // A matrix killed mid-write (SIGINT, SIGKILL) left its temp file: swept here.
    plumbing::sweep_stale_temp_files(std::filesystem::path(path_).parent_path().string());
    plumbing::OutputFile first(path_);  // an unwritable --out fails now, before measuring
    if (first.writes_through()) {
      through_ = std::make_unique<plumbing::OutputFile>(std::move(first));
      return;
    }
    first.write(text());
    first.commit();
  }
  void add_run(std::size_t index, nlohmann::json run) {
    runs_.at(index) = std::move(run);
    if (!through_) plumbing::write_file_atomically(path_, text());
  }
  void finish(nlohmann::json validation) {
    doc_["validation"] = std::move(validation);
    doc_["complete"] = true;
    if (!through_) return plumbing::write_file_atomically(path_, text());
    through_->write(text());
    through_->commit();
  }

 private:
  std::string text() {
    nlohmann::json& matrix = doc_["matrix"];
    matrix = nlohmann::json::array();
    for (const nlohmann::json& run : runs_) {
      if (!run.is_null()) matrix.push_back(run);
    }
    return doc_.dump(2) + "\n";
  }
  std::string path_;
  std::vector<nlohmann::json> runs_;  // by plan index; null until measured
  nlohmann::json doc_;
  std::unique_ptr<plumbing::OutputFile> through_;
};

class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out) {}
  void say(const std::string& line) const {
    if (out_ != nullptr) *out_ << "[locality] " << line << std::endl;
  }
  void run(std::size_t i, std::size_t n, const std::string& what) const {
    const double elapsed = std::chrono::duration<double>(MonoClock::now() - began_).count();
    const std::string left =
        i == 0 ? "" : fmt::format(", ~{} left for the model runs", minutes(elapsed / i * (n - i)));
    if (out_ != nullptr) {
      *out_ << fmt::format("[locality {}/{}] model: {} | {} elapsed{}", i + 1, n, what,
                           minutes(elapsed), left)
            << std::endl;
    }
  }

 private:
  std::ostream* out_;
  MonoClock::time_point began_ = MonoClock::now();
};

// The validation object for the JSON, or null when it did not run.
nlohmann::json cross_check(const MatrixOptions& options, const Progress& progress) {
  if (!options.validate) {
    progress.say("cross-check against real engines not asked for: skipped");
    return nullptr;
  }
  if (plumbing::find_program("mariadbd", {"/usr/sbin"}).empty()) {
    progress.say("mariadb-server not installed: cross-check skipped");
    return nullptr;
  }
  progress.say(
      fmt::format("cross-check against real engines ({} rows; minutes)", options.validate_rows));
  ValidationOptions v;
  v.rows = options.validate_rows;
  v.payloads = options.validate_payloads;
  v.progress = options.progress;
  ValidationReport report;
  try {
    report = run_validation(v);
  } catch (const Error& e) {
    progress.say(fmt::format("validation failed to run: {}", e.what()));
    return nullptr;
  }
  if (!report.innodb_ran) {
    progress.say("validation failed to run: InnoDB did not start");
    return nullptr;
  }
  if (!report.pass()) progress.say("WARNING: the model disagrees with InnoDB");
  return to_json(report);
}

}  // namespace

std::vector<std::vector<std::size_t>> runs_by_stream(const std::vector<RunSpec>& runs) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string label = stream_label(runs[i].stream);
    const auto it = std::find(labels.begin(), labels.end(), label);
    if (it != labels.end()) {
      groups[static_cast<std::size_t>(it - labels.begin())].push_back(i);
      continue;
    }
    labels.push_back(label);
    groups.push_back({i});
  }
  return groups;
}

int run_matrix(const MatrixOptions& options) {
  if (options.out.empty()) throw Error("--matrix needs --out FILE");
  check_rows(options.rows, "--rows");
  check_rows(options.validate_rows, "--validate-rows");
  const std::vector<int> row_sizes = matrix_row_sizes(options);
  for (const int payload : row_sizes) check_table({KeyType::binary16, payload});
  for (const int payload : options.validate_payloads) check_table({KeyType::binary16, payload});
  const std::vector<RunSpec> runs = plan_matrix(options.rows, row_sizes);
  // SIGINT/SIGTERM/SIGHUP only raise a flag while the matrix runs: a signal that arrived
  // during a write of the JSON would otherwise kill the process between the temp file and the
  // rename. The flag is read between runs (and every few thousand keys inside the model), so
  // the command unwinds with Interrupted and the JSON holds every finished run.
  const plumbing::InterruptGuard guard;
  MatrixFile file(options.out, row_sizes, options.decision_payload_bytes, runs.size());
  const Progress progress(options.progress);
  std::size_t done = 0;
  for (const std::vector<std::size_t>& group : runs_by_stream(runs)) {
    plumbing::throw_if_interrupted();
    const KeyStream stream = build_stream(runs[group.front()].stream);
    for (const std::size_t i : group) {
      progress.run(done++, runs.size(),
                   fmt::format("{} ({} rows)", label_of(runs[i]), options.rows));
      plumbing::throw_if_interrupted();
      file.add_run(i, to_json(runs[i], run_locality(runs[i], stream)));
    }
    plumbing::throw_if_interrupted();
  }
  file.finish(cross_check(options, progress));
  progress.say(fmt::format("wrote {}", options.out));
  return 0;
}

}  // namespace idbench::locality
