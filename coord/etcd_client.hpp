// etcd_client.hpp — the etcd v3 calls a worker-id lease needs, over etcd's HTTP/JSON gateway
// (POST /v3/..., base64 keys, int64 as strings), with fail-over between the members.
//
//   EtcdClient etcd({{"127.0.0.1", 23790}, {"127.0.0.1", 23791}});
//   etcd.check_quorum();                               // EtcdUnavailable when it has none
//   std::int64_t lease = etcd.grant(2);                // TTL 2 s
//   auto claim = etcd.claim_lowest("idbench/", lease, 1023, "node-3");
//   etcd.keepalive(lease);                             // remaining TTL; 0: the lease is gone
//
// Claiming: the lowest id whose key `<prefix>w/<id>` does not exist is taken with
// one transaction: create-if-absent on `w/<id>` (bound to the lease) and, in the same
// transaction, the id's claim counter `g/<id>` raised by one, guarded by its mod revision.
// Each holder of an id thus gets the next counter value: a zombie and the next owner of its
// id differ in it (what the in-ID fence puts in the generation bits).
//
// Fail-over: a call goes to the current member; when it cannot be reached or answers with
// an error, the next member is tried, each within `timeout_ns`. EtcdUnavailable when none
// answers.
//
// Thread safety: thread-compatible; give each thread its own client.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/errors.hpp"

namespace idbench::coord {

class EtcdUnavailable : public Error {
 public:
  using Error::Error;
};

struct Endpoint {
  std::string host;
  int port = 0;
};
std::string describe(const std::vector<Endpoint>& endpoints);
// "127.0.0.1:2379,127.0.0.1:2380" → endpoints; throws Error naming the bad entry.
std::vector<Endpoint> parse_endpoints(std::string_view text);

struct Claim {
  std::uint64_t id = 0;
  std::uint64_t counter = 0;    // 1 for the id's first holder, then 2, 3, ...
  std::int64_t revision = 0;    // etcd's revision of the claiming transaction
};

struct MemberStatus {
  std::uint64_t member_id = 0;
  std::uint64_t leader = 0;
};

class EtcdClient {
 public:
  explicit EtcdClient(std::vector<Endpoint> endpoints, std::int64_t timeout_ns = 1'000'000'000);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // A linearizable read: EtcdUnavailable ("unreachable" or "no quorum") unless a majority
  // answers through some member.
  void check_quorum();
  std::int64_t grant(int ttl_s);
  // The lease's remaining TTL in s after the renewal; 0 when it no longer exists.
  std::int64_t keepalive(std::int64_t lease);
  void revoke(std::int64_t lease);
  // The lowest free id in [0, max_id], claimed; nullopt when every id is taken.
  std::optional<Claim> claim_lowest(std::string_view prefix, std::int64_t lease,
                                    std::uint64_t max_id, std::string_view holder);
  // The ids whose `w/` key exists now, ascending.
  std::vector<std::uint64_t> held_ids(std::string_view prefix);
  // A plain put (the write-rate measurement): the revision it made.
  std::int64_t put(std::string_view key, std::string_view value);
  // One member's view (no fail-over): throws EtcdUnavailable when it does not answer.
  MemberStatus status_of(std::size_t endpoint_index);

  // A gateway call with fail-over; throws EtcdUnavailable.
  nlohmann::json call(std::string_view path, const nlohmann::json& request);

 private:
  struct Conn;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::size_t current_ = 0;
  std::int64_t timeout_ns_;
};

std::string base64_encode(std::string_view bytes);
std::string base64_decode(std::string_view text);
// A gateway int64: a JSON string of digits or a number; 0 when absent.
std::int64_t json_int(const nlohmann::json& object, std::string_view field);
std::uint64_t json_uint(const nlohmann::json& object, std::string_view field);  // member ids

}  // namespace idbench::coord
