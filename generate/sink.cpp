// sink.cpp — where generate's threads write their IDs: one output for all, or one file each.
#include "generate/sink.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace idbench::generate {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<std::size_t>(slash, 1));
}

}  // namespace

std::string thread_file(const std::string& out_dir, unsigned t, FileFormat format) {
  return fmt::format("{}/thread-{}.{}", out_dir, t, format == FileFormat::text ? "txt" : "bin");
}

Sink::Sink(const SinkSpec& spec) : format_(spec.format), width_(spec.width) {
  if (!spec.out_dir.empty()) {
    plumbing::sweep_stale_temp_files(spec.out_dir);
    files_.reserve(spec.threads);
    for (unsigned t = 0; t < spec.threads; ++t) {
      files_.emplace_back(thread_file(spec.out_dir, t, spec.format));
    }
    return;
  }
  if (!spec.out.empty()) plumbing::sweep_stale_temp_files(dir_of(spec.out));
  shared_.emplace(spec.out);
  spools_.resize(spec.threads);
  for (unsigned t = 1; t < spec.threads; ++t) spools_[t] = std::make_unique<Spool>();
}

void Sink::write(unsigned thread, std::span<const Id> ids, std::string& scratch) {
  scratch.clear();
  encode_ids(scratch, ids, format_, width_);
  if (!shared_) {
    files_[thread].write(scratch);
  } else if (thread == 0) {
    shared_->write(scratch);
  } else {
    spools_[thread]->write(scratch);
  }
}

void Sink::commit() {
  if (!shared_) {
    plumbing::commit_all(files_);
    return;
  }
  for (std::size_t t = 1; t < spools_.size(); ++t) spools_[t]->drain_into(*shared_);
  shared_->commit();
}

}  // namespace idbench::generate
