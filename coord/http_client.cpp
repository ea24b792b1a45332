// http_client.cpp — one persistent HTTP/1.1 connection: connect, send, read an answer.
#include "coord/http_client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "plumbing/child_process.hpp"

namespace idbench::coord {

namespace {

// Waits for `events` on fd until the deadline; false at the deadline.
bool wait_for(int fd, short events, std::int64_t deadline_mono_ns) {
  for (;;) {
    const std::int64_t left_ns = deadline_mono_ns - plumbing::monotonic_ns();
    if (left_ns <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left_ns / 1'000'000 + 1));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

HttpConnection::HttpConnection(std::string host, int port) : host_(std::move(host)), port_(port) {}

HttpConnection::~HttpConnection() { close(); }

std::string HttpConnection::endpoint() const { return fmt::format("{}:{}", host_, port_); }

void HttpConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

void HttpConnection::connect_by(std::int64_t deadline_mono_ns) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw HttpError(fmt::format("socket: {}", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port_));
  if (::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr) != 1) {
    close();
    throw HttpError(fmt::format("not an IPv4 address: {}", host_));
  }
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 &&
      errno != EINPROGRESS) {
    const int e = errno;
    close();
    throw HttpError(fmt::format("cannot connect to {}: {}", endpoint(), std::strerror(e)));
  }
  int err = 0;
  socklen_t len = sizeof err;
  if (!wait_for(fd_, POLLOUT, deadline_mono_ns) ||
      ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    close();
    throw HttpError(fmt::format("cannot connect to {}: {}", endpoint(),
                                err ? std::strerror(err) : "timed out"));
  }
}

void HttpConnection::send_all(std::string_view data, std::int64_t deadline_mono_ns) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd_, POLLOUT, deadline_mono_ns)) throw HttpError("send timed out");
    } else {
      throw HttpError(fmt::format("send to {}: {}", endpoint(), std::strerror(errno)));
    }
  }
}

void HttpConnection::fill(std::size_t n, std::int64_t deadline_mono_ns) {
  char chunk[4096];
  while (buffer_.size() < n) {
    const ssize_t r = ::recv(fd_, chunk, sizeof chunk, 0);
    if (r > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(r));
    } else if (r == 0) {
      throw HttpError(fmt::format("{} closed the connection", endpoint()));
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!wait_for(fd_, POLLIN, deadline_mono_ns)) {
        throw HttpError(fmt::format("{} did not answer in time", endpoint()));
      }
    } else {
      throw HttpError(fmt::format("recv from {}: {}", endpoint(), std::strerror(errno)));
    }
  }
}

std::string HttpConnection::read_line(std::int64_t deadline_mono_ns) {
  std::size_t end;
  while ((end = buffer_.find("\r\n")) == std::string::npos) {
    if (buffer_.size() > 65536) throw HttpError("HTTP header line too long");
    fill(buffer_.size() + 1, deadline_mono_ns);
  }
  std::string line = buffer_.substr(0, end);
  buffer_.erase(0, end + 2);
  return line;
}

std::string HttpConnection::read_body(bool chunked, std::size_t length,
                                      std::int64_t deadline_mono_ns) {
  std::string body;
  if (!chunked) {
    fill(length, deadline_mono_ns);
    body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return body;
  }
  for (;;) {
    const std::string size_line = read_line(deadline_mono_ns);
    std::size_t size = 0;
    try {
      size = std::stoul(size_line, nullptr, 16);
    } catch (const std::exception&) {
      throw HttpError(fmt::format("bad chunk size '{}'", size_line));
    }
    if (size > (64u << 20)) throw HttpError("HTTP chunk too large");
    if (size == 0) {
      while (!read_line(deadline_mono_ns).empty()) {
      }
      return body;
    }
    fill(size + 2, deadline_mono_ns);
    body.append(buffer_, 0, size);
    buffer_.erase(0, size + 2);
  }
}

HttpResponse HttpConnection::post(std::string_view path, std::string_view body,
                                  std::int64_t deadline_mono_ns) {
  try {
    if (fd_ < 0) connect_by(deadline_mono_ns);
    send_all(fmt::format("POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n"
                         "Content-Length: {}\r\n\r\n",
                         path, endpoint(), body.size()),
             deadline_mono_ns);
    send_all(body, deadline_mono_ns);
    HttpResponse response;
    const std::string status = read_line(deadline_mono_ns);
    if (status.size() < 12 || !status.starts_with("HTTP/1.")) {
      throw HttpError(fmt::format("not an HTTP answer from {}: '{}'", endpoint(), status));
    }
    response.status = std::atoi(status.c_str() + 9);
    bool chunked = false;
    std::size_t length = 0;
    for (std::string line; !(line = read_line(deadline_mono_ns)).empty();) {
      const std::string h = lower(line);
      if (h.starts_with("content-length:")) length = std::stoul(h.substr(15));
      if (h.starts_with("transfer-encoding:") && h.find("chunked") != std::string::npos) {
        chunked = true;
      }
    }
    response.body = read_body(chunked, length, deadline_mono_ns);
    return response;
  } catch (const HttpError&) {
    close();
    throw;
  } catch (const std::exception& e) {  // std::stoul on a malformed header
    close();
    throw HttpError(fmt::format("malformed HTTP answer from {}: {}", endpoint(), e.what()));
  }
}

}  // namespace idbench::coord
