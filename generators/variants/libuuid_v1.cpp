// libuuid-v1 — the real DCE peer: util-linux libuuid's `uuid_generate_time` (Debian 12:
// libuuid1 2.38.1), called in-process. Not a model: the library's own code and state.
//
// libuuid picks one of three paths, in this order, and `libuuid_path()` says which one this
// host gives it:
//   1. the uuidd daemon, over the socket /run/uuidd/request (one generator for the host);
//   2. its clock state file /var/lib/libuuid/clock.txt (`clock: SEQ tv: SEC USEC adj: N`),
//      shared between processes under flock: the DCE "stable storage";
//   3. neither: state in the calling thread only — a random 14-bit clock sequence drawn at the
//      thread's first call, the host's MAC address as the node (a random multicast node if it
//      has none), and the clock sequence bumped whenever gettimeofday reads behind the last
//      time. Threads and processes are then told apart only by their random clock sequences.
// It reads the time with gettimeofday through libc, so libfaketime reaches it (chaos); the
// Clock seam, the policy and a persisted high-water mark do not: the library applies its own
// rule, the DCE clock sequence (description field `own_clock`).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include <cstring>

#include "generators/registry.hpp"

namespace idbench {
namespace {

constexpr const char* kUuiddSocket = "/run/uuidd/request";        // util-linux UUIDD_SOCKET_PATH
constexpr const char* kClockFile = "/var/lib/libuuid/clock.txt";  // LIBUUID_CLOCK_FILE

bool uuidd_answers() {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, kUuiddSocket, sizeof addr.sun_path - 1);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

class LibuuidV1 {
 public:
  using id_type = Uuid;
  explicit LibuuidV1(const GeneratorOptions&) {}

  Uuid next() {
    Uuid u;
    uuid_generate_time(u.bytes.data());
    return u;
  }
  std::string format() const {
    return "UUIDv1 from libuuid uuid_generate_time (util-linux), path: " + libuuid_path();
  }
};

}  // namespace

std::string libuuid_path() {
  if (uuidd_answers()) return "uuidd daemon (/run/uuidd/request)";
  // The library opens its file O_RDWR|O_CREAT: it uses it when it could create or write it.
  if (::access(kClockFile, R_OK | W_OK) == 0 || ::access("/var/lib/libuuid", W_OK) == 0) {
    return "clock state file (/var/lib/libuuid/clock.txt)";
  }
  return "in-process fallback (no uuidd, no /var/lib/libuuid/clock.txt): a random clock "
         "sequence per thread";
}

Variant describe_libuuid_v1() {
  return {.name = "libuuid-v1",
          .summary = "libuuid uuid_generate_time in-process: the real DCE clock-sequence peer",
          .family = "uuid",
          .scheme = "DCE",  // the real peer of uuidv1/uuidv6 (own_clock)
          .width = IdWidth::bits128,
          .ordering = Ordering::none,
          .time_based = true,
          .id_time = IdTime::uuid,
          .own_clock = true,
          // Its rule is DCE's clock sequence: the matrix's clock-sequence cells, quick too.
          .defaults = {.chaos = false,
                       .chaos_quick = false,
                       .locality = true,
                       .clock_sequence = true,
                       .clock_sequence_quick = true},
          .make = factory_of<LibuuidV1>()};
}

}  // namespace idbench
