// http_client.hpp — a minimal HTTP/1.1 client over one persistent loopback TCP connection: what
// etcd's v3 JSON gateway needs (POST a JSON body, read a Content-Length or chunked answer).
//
//   HttpConnection c("127.0.0.1", 2379);
//   HttpResponse r = c.post("/v3/lease/grant", R"({"TTL":2})", monotonic_ns() + 1'000'000'000);
//
// Why not libcurl or gRPC: Debian has no C++ etcd client, no etcd protos for grpc++, and only
// libcurl's runtime here; etcd's gateway speaks plain HTTP/1.1 on loopback, and this client is
// ~150 lines with no new package. The connection is opened once and reused (keep-alive), so
// a keep-alive or claim costs one round trip and never a process.
//
// Every call has a monotonic deadline; a timeout, a refused connection or a malformed answer
// throws HttpError and closes the connection (the next call reconnects).
//
// Thread safety: thread-compatible (one connection per thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "generators/errors.hpp"

namespace idbench::coord {

class HttpError : public Error {
 public:
  using Error::Error;
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpConnection {
 public:
  HttpConnection(std::string host, int port);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  HttpResponse post(std::string_view path, std::string_view body, std::int64_t deadline_mono_ns);
  void close();
  std::string endpoint() const;

 private:
  void connect_by(std::int64_t deadline_mono_ns);
  void send_all(std::string_view data, std::int64_t deadline_mono_ns);
  // Reads until `buffer_` holds at least `n` bytes.
  void fill(std::size_t n, std::int64_t deadline_mono_ns);
  std::string read_line(std::int64_t deadline_mono_ns);
  std::string read_body(bool chunked, std::size_t length, std::int64_t deadline_mono_ns);

  std::string host_;
  int port_;
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace idbench::coord
