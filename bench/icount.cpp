// icount.cpp — idbench-icount: instructions per ID of every variant's single-thread next(),
// a cost that does not move between runs of the same code.
//
//   valgrind --tool=callgrind --collect-atstart=no idbench-icount [--calls N] [--variant V]...
//   idbench-icount --method perf [--calls N]       # hardware counter, where the kernel allows
//
// bench/run_icount.py runs it and writes icount.json; read that, not this program's output.
//
// First the minimal designs (generators/reference.hpp: a CAS, a mutex, a per-thread Snowflake
// and a method-1 UUIDv7, hard-coded to the Twitter layout and the refuse policy), then each
// variant of the registry (or those named); each is built on a SteppingClock
// (bench/stepping_clock.hpp: deterministic time, no vDSO read), warmed up with kWarmup calls,
// then N calls of next() are counted:
//   * callgrind: collection is toggled on around the N calls (client requests from
//     valgrind/callgrind.h) and dumped with the variant's name as the trigger, so the dump
//     files carry one count per variant;
//   * perf: a PERF_COUNT_HW_INSTRUCTIONS counter of this thread, user space only, read
//     around the same N calls. Virtual machines often expose no counter; then this program
//     says why on one line and exits 4, and run_icount.py falls back to valgrind.
// stdout: one JSON object {"context" (plumbing/run_context.hpp), "method", "calls", "clock",
// "plant", "floors": [{"name", "instructions" (perf only)}], "variants": [{"name", "floor"
// (the minimal design it is compared with, or null), "instructions" (perf only)}]}. Exit 2 on bad
// flags, 3 when a generator refuses, 4 when the counter is unavailable.
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/plant.hpp"
#include "bench/stepping_clock.hpp"
#include "generators/reference.hpp"
#include "generators/registry.hpp"
#include "plumbing/exit_codes.hpp"
#include "plumbing/run_context.hpp"

// Debian's valgrind package ships the client-request header; without it only perf is left.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define IDBENCH_HAVE_CALLGRIND 1
#else
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(name) static_cast<void>(name)
#endif

namespace {

using idbench::Variant;

// The minimal designs, counted as the floors of the variants below.
struct Floor {
  const char* name;
  std::unique_ptr<idbench::Generator> (*make)(const idbench::GeneratorOptions&);
};
constexpr Floor kFloors[] = {{"floor/cas", &idbench::make_minimal_cas},
                             {"floor/mutex", &idbench::make_minimal_mutex},
                             {"floor/thread-local", &idbench::make_minimal_per_thread},
                             {"floor/uuidv7", &idbench::make_minimal_uuidv7}};

// The floor of each variant: the minimal design of its synchronisation and ID shape. UUIDv1/v6
// keep a (tick, seq) behind one mutex, as `mutex` does; uuidv7-random and uuidv8 are UUIDv7s with
// other fields after the ms. The rest have none: uuidv4, auto-increment and ticket-pair keep no
// (tick, seq) state, and libuuid-v1 is libuuid's code, not idbench's.
constexpr std::pair<std::string_view, const char*> kFloorOf[] = {
    {"cas", "floor/cas"},
    {"mutex", "floor/mutex"},
    {"thread-local", "floor/thread-local"},
    {"uuidv7", "floor/uuidv7"},
    {"uuidv7-random", "floor/uuidv7"},
    {"uuidv8", "floor/uuidv7"},
    {"uuidv1", "floor/mutex"},
    {"uuidv6", "floor/mutex"}};

const char* floor_of(std::string_view variant) {
  for (const auto& [name, floor] : kFloorOf) {
    if (name == variant) return floor;
  }
  return nullptr;
}

// Calls before counting: the first calls fill per-thread buffers (random bytes) and caches.
constexpr int kWarmup = 2'000;

struct Flags {
  long calls = 20'000;
  std::string method = "auto";  // auto: callgrind when under valgrind, else perf
  std::string layout = "twitter";
  std::vector<std::string> variants;
};

[[noreturn]] void bad_usage(const std::string& why) {
  std::fprintf(stderr,
               "idbench-icount: %s (usage: idbench-icount [--calls N] [--variant V]... "
               "[--layout L] [--method auto|callgrind|perf])\n",
               why.c_str());
  std::exit(idbench::kExitBadInput);
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) bad_usage("'" + arg + "' needs a value");
    const std::string value = argv[++i];
    if (arg == "--calls") {
      char* end = nullptr;
      f.calls = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || f.calls < 1 || f.calls > 100'000'000) bad_usage("bad --calls " + value);
    } else if (arg == "--variant") {
      if (idbench::find_variant(value) == nullptr) bad_usage("no variant '" + value + "'");
      f.variants.push_back(value);
    } else if (arg == "--layout") {
      f.layout = value;
    } else if (arg == "--method") {
      if (value != "auto" && value != "callgrind" && value != "perf") bad_usage("bad --method");
      f.method = value;
    } else {
      bad_usage("unknown flag '" + arg + "'");
    }
  }
  return f;
}

// A user-space instruction counter of this thread; nullopt and `why` when the kernel has none.
class PerfCounter {
 public:
  bool open(std::string& why) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;  // perf_event_paranoid 2 allows user space only
    attr.exclude_hv = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd_ < 0) why = fmt::format("perf_event_open(instructions): {}", std::strerror(errno));
    return fd_ >= 0;
  }
  void start() const {
    ioctl(fd_, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
  }
  std::optional<std::uint64_t> stop() const {
    ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
    std::uint64_t n = 0;
    if (read(fd_, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return std::nullopt;
    return n;
  }
  ~PerfCounter() {
    if (fd_ >= 0) close(fd_);
  }

 private:
  int fd_ = -1;
};

// N calls of next(), counted by `method`; the instruction count for perf, nullopt for callgrind
// (its count is in the dump named after the variant).
template <class Make>
std::optional<std::uint64_t> count(std::string_view name, Make&& make, const Flags& f,
                                   bool callgrind, const PerfCounter& perf) {
  idbench::GeneratorOptions opts;
  opts.layout = idbench::Layout::parse(f.layout);
  opts.clock = std::make_shared<idbench::bench::SteppingClock>();
  auto gen = idbench::bench::plant(make(opts), name);
  std::uint64_t sink = 0;
  for (int i = 0; i < kWarmup; ++i) sink += gen->next().lo;
  std::optional<std::uint64_t> n;
  if (callgrind) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
  } else {
    perf.start();
  }
  for (long i = 0; i < f.calls; ++i) sink += gen->next().lo;
  if (callgrind) {
    CALLGRIND_TOGGLE_COLLECT;
    // Named: the macro stores the pointer in one statement and uses it in the next, so a
    // temporary's heap buffer (a name longer than the short-string buffer) would be gone.
    const std::string trigger(name);
    CALLGRIND_DUMP_STATS_AT(trigger.c_str());
  } else {
    n = perf.stop();
  }
  asm volatile("" : : "r"(sink));  // the IDs are used
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  const bool under_valgrind = RUNNING_ON_VALGRIND != 0;
  const bool callgrind = f.method == "callgrind" || (f.method == "auto" && under_valgrind);
  if (callgrind && !under_valgrind) {
    std::fprintf(stderr,
                 "idbench-icount: --method callgrind needs valgrind --tool=callgrind "
                 "--collect-atstart=no around this program\n");
    return idbench::kExitBadInput;
  }
  PerfCounter perf;
  std::string why;
  if (!callgrind && !perf.open(why)) {
    std::fprintf(stderr,
                 "idbench-icount: %s: no hardware instruction counter here; run under "
                 "valgrind (bench/run_icount.py falls back to it)\n",
                 why.c_str());
    return idbench::kExitMissingTool;
  }
  nlohmann::ordered_json out{
      {"context", idbench::plumbing::to_json(idbench::plumbing::current_run_context())},
      {"method", callgrind ? "callgrind" : "perf_event"},
      {"calls", f.calls},
      {"layout", f.layout},
      {"clock", "stepping: +1 us per reading (deterministic; no vDSO read)"},
      {"plant", idbench::bench::plant_description()},
      {"floors", nlohmann::json::array()},
      {"variants", nlohmann::json::array()}};
  try {
    for (const Floor& floor : kFloors) {
      const auto n = count(floor.name, floor.make, f, callgrind, perf);
      nlohmann::ordered_json row{{"name", floor.name}};
      if (n) row["instructions"] = *n;
      out["floors"].push_back(row);
    }
    for (const Variant& v : idbench::variants()) {
      if (!f.variants.empty() &&
          std::find(f.variants.begin(), f.variants.end(), v.name) == f.variants.end()) {
        continue;
      }
      const auto n = count(v.name, v.make, f, callgrind, perf);
      const char* floor = floor_of(v.name);
      nlohmann::ordered_json row{{"name", v.name},
                                 {"floor", floor ? nlohmann::json(floor) : nlohmann::json()}};
      if (n) row["instructions"] = *n;
      out["variants"].push_back(row);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "idbench-icount: %s\n", e.what());
    return idbench::kExitRefused;
  }
  std::puts(out.dump().c_str());
  return 0;
}
