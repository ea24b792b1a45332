// id_file.cpp — reading and writing the shared ID file formats (text and binary).
#include "check/id_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "check/id_text.hpp"
#include "plumbing/child_process.hpp"

namespace idbench {
namespace {

// The read buffer; also the longest line accepted (a valid line has at most 36 characters).
constexpr std::size_t kReadBuffer = std::size_t{1} << 20;

std::size_t record_bytes(IdWidth w) { return w == IdWidth::bits64 ? 8 : 16; }

}  // namespace

IdReader::IdReader(std::string path, FileFormat format, std::optional<IdWidth> width)
    : path_(std::move(path)), format_(format), width_(width), buf_(kReadBuffer) {
  if (format_ == FileFormat::binary && !width_) width_ = IdWidth::bits64;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IdFileError(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw IdFileError(fmt::format("{}: is a directory (expected a file of IDs)", path_));
  }
  if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
}

IdReader::~IdReader() { ::close(fd_); }

// Moves the unread tail to the front and reads more; false at end of file.
bool IdReader::refill() {
  std::memmove(buf_.data(), buf_.data() + start_, have_ - start_);
  have_ -= start_;
  start_ = 0;
  for (;;) {
    // A signal a caller's InterruptGuard caught ends a read (even one blocked on a pipe).
    plumbing::throw_if_interrupted();
    const ssize_t n = ::read(fd_, buf_.data() + have_, buf_.size() - have_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IdFileError(fmt::format("{}: cannot read: {}", path_, std::strerror(errno)));
    if (n == 0) eof_ = true;
    have_ += static_cast<std::size_t>(n);
    return n > 0;
  }
}

void IdReader::parse_line(std::string_view line, std::vector<Id>& out) {
  ++line_no_;
  if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF files are accepted
  if (line.empty()) {
    throw IdFileError(fmt::format("{}:{}: empty line (expected one ID per line)", path_, line_no_));
  }
  if (!width_) {
    const WidthGuess guess = infer_id_width(line);
    if (!guess.width) throw IdFileError(fmt::format("{}:{}: {}", path_, line_no_, guess.problem));
    width_ = guess.width;
  }
  const auto id = parse_id_text(line, *width_);
  if (!id) {
    throw IdFileError(fmt::format("{}:{}: {}", path_, line_no_, explain_bad_id(line, *width_)));
  }
  out.push_back(*id);
}

void IdReader::take_records(std::vector<Id>& out, std::size_t max) {
  const std::size_t record = record_bytes(*width_);
  const std::size_t n = std::min((have_ - start_) / record, max - out.size());
  for (std::size_t i = 0; i < n; ++i, start_ += record) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(buf_.data() + start_);
    if (record == 8) {
      std::uint64_t v = 0;
      for (int b = 7; b >= 0; --b) v = v << 8 | p[b];
      out.push_back(Id::from_u64(v));
    } else {
      Uuid u;
      std::memcpy(u.bytes.data(), p, 16);
      out.push_back(Id::from_uuid(u));
    }
  }
}

bool IdReader::next(std::vector<Id>& out, std::size_t max) {
  out.clear();
  while (out.size() < max) {
    if (format_ == FileFormat::binary) {
      if (have_ - start_ >= record_bytes(*width_)) {
        take_records(out, max);
      } else if (eof_ || !refill()) {
        if (have_ > start_) {
          throw IdFileError(fmt::format("{}: size is not a multiple of {} bytes (truncated?)",
                                        path_, record_bytes(*width_)));
        }
        break;
      }
      continue;
    }
    const void* nl = std::memchr(buf_.data() + start_, '\n', have_ - start_);
    if (nl != nullptr) {
      const std::size_t end = static_cast<const char*>(nl) - buf_.data();
      parse_line(std::string_view(buf_.data() + start_, end - start_), out);
      start_ = end + 1;
    } else if (eof_ || (start_ == 0 && have_ == buf_.size())) {
      if (start_ == 0 && have_ == buf_.size()) {
        throw IdFileError(
            fmt::format("{}:{}: line longer than {} bytes", path_, line_no_ + 1, buf_.size()));
      }
      if (have_ > start_) parse_line(std::string_view(buf_.data() + start_, have_ - start_), out);
      start_ = have_;
      break;
    } else {
      refill();
    }
  }
  return !out.empty();
}

IdStream read_id_file(const std::string& path, FileFormat format, std::optional<IdWidth> width) {
  IdReader reader(path, format, width);
  IdStream out;
  out.name = path;
  std::vector<Id> batch;
  while (reader.next(batch, 1 << 16)) {
    out.width = *reader.width();
    for (const Id& id : batch) {
      if (out.width == IdWidth::bits64) {
        out.ids64.push_back(id.lo);
      } else {
        out.ids128.push_back(id);
      }
    }
  }
  if (reader.width()) out.width = *reader.width();
  return out;
}

void encode_ids(std::string& out, std::span<const Id> ids, FileFormat format, IdWidth width) {
  out.reserve(out.size() + ids.size() * (format == FileFormat::text ? 37 : 16));
  for (const Id& id : ids) {
    if (format == FileFormat::text) {
      out += to_text(id, width);
      out += '\n';
    } else if (width == IdWidth::bits64) {
      for (int b = 0; b < 8; ++b) out += static_cast<char>(id.lo >> (8 * b));
    } else {
      const Uuid u = id.to_uuid();
      out.append(reinterpret_cast<const char*>(u.bytes.data()), u.bytes.size());
    }
  }
}

IdFileWriter::IdFileWriter(std::string path, FileFormat format, IdWidth width)
    : out_(std::move(path)), format_(format), width_(width) {}

void IdFileWriter::write(std::span<const Id> ids) {
  scratch_.clear();
  encode_ids(scratch_, ids, format_, width_);
  out_.write(scratch_);
}

}  // namespace idbench
