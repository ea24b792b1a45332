// free_ports.hpp — loopback TCP ports free right now, for a server that needs one (etcd, a
// Redis master its replica connects to): bound to port 0 at once, read back, released.
//
//   std::vector<int> p = free_loopback_ports(2, "etcd");   // two distinct ports
//
// A port is free when chosen, not reserved: the server binds it moments later.
//
// Thread safety: stateless.
#pragma once

#include <string_view>
#include <vector>

namespace idbench::plumbing {

// `count` distinct free ports on 127.0.0.1; throws Error naming `what` when there are none.
std::vector<int> free_loopback_ports(int count, std::string_view what);

}  // namespace idbench::plumbing
