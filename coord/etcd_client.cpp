// etcd_client.cpp — etcd v3 over the JSON gateway: calls with fail-over, leases, the claim txn.
#include "coord/etcd_client.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>

#include "coord/http_client.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::coord {

using nlohmann::json;

struct EtcdClient::Conn {
  Endpoint at;
  HttpConnection http;
  explicit Conn(const Endpoint& e) : at(e), http(e.host, e.port) {}
};

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The key after every key starting with `prefix` (etcd's range_end for a prefix).
std::string prefix_end(std::string prefix) {
  while (!prefix.empty()) {
    if (static_cast<unsigned char>(prefix.back()) < 0xff) {
      prefix.back() = static_cast<char>(prefix.back() + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');
}

std::optional<std::uint64_t> id_after(std::string_view key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return std::nullopt;
  key.remove_prefix(prefix.size());
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), v);
  if (ec != std::errc() || p != key.data() + key.size()) return std::nullopt;
  return v;
}

struct KeyState {
  std::string value;
  std::int64_t mod_revision = 0;
};

// Every key under `prefix`, by id, for the `w/` and `g/` families.
struct Holdings {
  std::map<std::uint64_t, KeyState> workers, counters;
};

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  while (out.size() % 4) out += '=';
  return out;
}

std::string base64_decode(std::string_view text) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const char* p = c ? std::strchr(kAlphabet, c) : nullptr;
    if (!p) break;  // '=' or the end
    acc = (acc << 6) | static_cast<std::uint32_t>(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::int64_t json_int(const json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  throw EtcdUnavailable(fmt::format("etcd answered a non-integer {}: {}", field, it->dump()));
}

std::uint64_t json_uint(const json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  throw EtcdUnavailable(fmt::format("etcd answered a non-integer {}: {}", field, it->dump()));
}

std::string describe(const std::vector<Endpoint>& endpoints) {
  std::string s;
  for (const auto& e : endpoints) s += fmt::format("{}{}:{}", s.empty() ? "" : ",", e.host, e.port);
  return s;
}

std::vector<Endpoint> parse_endpoints(std::string_view text) {
  std::vector<Endpoint> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto colon = item.rfind(':');
    int port = 0;
    if (colon != std::string_view::npos) {
      std::from_chars(item.data() + colon + 1, item.data() + item.size(), port);
    }
    if (colon == std::string_view::npos || colon == 0 || port <= 0 || port > 65535) {
      throw Error(fmt::format("etcd endpoint '{}' is not HOST:PORT (an IPv4 address)", item));
    }
    out.push_back({std::string(item.substr(0, colon)), port});
  }
  if (out.empty()) throw Error("no etcd endpoint given");
  return out;
}

EtcdClient::EtcdClient(std::vector<Endpoint> endpoints, std::int64_t timeout_ns)
    : timeout_ns_(timeout_ns) {
  if (endpoints.empty()) throw Error("EtcdClient: no endpoints");
  for (const auto& e : endpoints) conns_.push_back(std::make_unique<Conn>(e));
}

EtcdClient::~EtcdClient() = default;

json EtcdClient::call(std::string_view path, const json& request) {
  const std::string body = request.dump();
  std::string errors;
  for (std::size_t attempt = 0; attempt < conns_.size(); ++attempt) {
    Conn& c = *conns_[current_];
    try {
      const auto r = c.http.post(path, body, plumbing::monotonic_ns() + timeout_ns_);
      json answer = json::parse(r.body, nullptr, false);
      if (r.status == 200 && answer.is_object() && !answer.contains("error")) return answer;
      errors += fmt::format("; {}: HTTP {} {}", c.http.endpoint(), r.status, r.body.substr(0, 200));
    } catch (const HttpError& e) {
      errors += fmt::format("; {}", e.what());
    }
    current_ = (current_ + 1) % conns_.size();
  }
  std::vector<Endpoint> at;
  for (const auto& c : conns_) at.push_back(c->at);
  throw EtcdUnavailable(fmt::format("etcd at {} did not answer {}{}", describe(at), path, errors));
}

void EtcdClient::check_quorum() {
  // A range is linearizable unless "serializable": it needs the leader and a majority.
  call("/v3/kv/range", {{"key", base64_encode("idbench-quorum-check")}});
}

std::int64_t EtcdClient::grant(int ttl_s) {
  const json r = call("/v3/lease/grant", {{"TTL", ttl_s}});
  const std::int64_t id = json_int(r, "ID");
  if (id == 0) throw EtcdUnavailable(fmt::format("etcd granted no lease: {}", r.dump()));
  return id;
}

std::int64_t EtcdClient::keepalive(std::int64_t lease) {
  const json r = call("/v3/lease/keepalive", {{"ID", std::to_string(lease)}});
  const auto it = r.find("result");
  return it == r.end() ? 0 : json_int(*it, "TTL");
}

void EtcdClient::revoke(std::int64_t lease) {
  call("/v3/lease/revoke", {{"ID", std::to_string(lease)}});
}

std::int64_t EtcdClient::put(std::string_view key, std::string_view value) {
  const json r = call("/v3/kv/put", {{"key", base64_encode(key)}, {"value", base64_encode(value)}});
  return json_int(r.value("header", json::object()), "revision");
}

MemberStatus EtcdClient::status_of(std::size_t endpoint_index) {
  Conn& c = *conns_.at(endpoint_index);
  try {
    const auto r = c.http.post("/v3/maintenance/status", "{}", plumbing::monotonic_ns() + timeout_ns_);
    const json answer = json::parse(r.body, nullptr, false);
    if (r.status != 200 || !answer.is_object()) throw HttpError(fmt::format("HTTP {}", r.status));
    return {json_uint(answer.value("header", json::object()), "member_id"),
            json_uint(answer, "leader")};
  } catch (const HttpError& e) {
    throw EtcdUnavailable(fmt::format("etcd member {} did not answer: {}", c.http.endpoint(), e.what()));
  }
}

namespace {

Holdings read_holdings(EtcdClient& etcd, std::string_view prefix) {
  const std::string p(prefix);
  const json r = etcd.call("/v3/kv/range",
                           {{"key", base64_encode(p)}, {"range_end", base64_encode(prefix_end(p))}});
  Holdings h;
  for (const auto& kv : r.value("kvs", json::array())) {
    const std::string key = base64_decode(kv.value("key", ""));
    KeyState st{base64_decode(kv.value("value", "")), json_int(kv, "mod_revision")};
    if (auto id = id_after(key, p + "w/")) h.workers[*id] = st;
    if (auto id = id_after(key, p + "g/")) h.counters[*id] = st;
  }
  return h;
}

std::uint64_t counter_of(const KeyState& st) {
  std::uint64_t v = 0;
  std::from_chars(st.value.data(), st.value.data() + st.value.size(), v);
  return v;
}

}  // namespace

std::vector<std::uint64_t> EtcdClient::held_ids(std::string_view prefix) {
  std::vector<std::uint64_t> ids;
  for (const auto& [id, st] : read_holdings(*this, prefix).workers) ids.push_back(id);
  return ids;
}

std::optional<Claim> EtcdClient::claim_lowest(std::string_view prefix, std::int64_t lease,
                                              std::uint64_t max_id, std::string_view holder) {
  const std::string p(prefix);
  for (int round = 0; round < 64; ++round) {  // each lost race re-reads the holdings
    const Holdings h = read_holdings(*this, p);
    std::uint64_t id = 0;
    while (id <= max_id && h.workers.contains(id)) ++id;
    if (id > max_id) return std::nullopt;
    const auto c = h.counters.find(id);
    const std::uint64_t counter = (c == h.counters.end() ? 0 : counter_of(c->second)) + 1;
    const std::string wkey = fmt::format("{}w/{}", p, id), gkey = fmt::format("{}g/{}", p, id);
    const json txn = {
        {"compare",
         {{{"target", "CREATE"}, {"key", base64_encode(wkey)}, {"createRevision", "0"}},
          {{"target", "MOD"},
           {"key", base64_encode(gkey)},
           {"modRevision", std::to_string(c == h.counters.end() ? 0 : c->second.mod_revision)}}}},
        {"success",
         {{{"requestPut",
            {{"key", base64_encode(wkey)},
             {"value", base64_encode(holder)},
             {"lease", std::to_string(lease)}}}},
          {{"requestPut",
            {{"key", base64_encode(gkey)}, {"value", base64_encode(std::to_string(counter))}}}}}}};
    const json r = call("/v3/kv/txn", txn);
    if (r.value("succeeded", false)) {
      return Claim{id, counter, json_int(r.value("header", json::object()), "revision")};
    }
  }
  throw EtcdUnavailable("etcd: 64 claim transactions in a row lost their race");
}

}  // namespace idbench::coord
