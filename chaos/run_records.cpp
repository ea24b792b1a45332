// run_records.cpp — reading a run directory into RunRecords (see run_records.hpp).
#include "chaos/run_records.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "chaos/analysis.hpp"
#include "chaos/process.hpp"

namespace idbench::chaos {
namespace {

// Fixed-size entries (ProbeSample) of one file.
template <class T>
std::vector<T> read_fixed(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};  // a node killed before it created the file issued nothing
  std::fseek(f, 0, SEEK_END);
  const long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  // A kill -9 can cut the last write short: keep the whole entries, count the rest as lost.
  std::vector<T> entries(bytes > 0 ? static_cast<std::size_t>(bytes) / sizeof(T) : 0);
  const std::size_t got = std::fread(entries.data(), sizeof(T), entries.size(), f);
  std::fclose(f);
  entries.resize(got);
  return entries;
}

// Per thread: what the .done file says; every thread -1 when the incarnation was killed.
std::vector<std::int64_t> read_done(const std::string& path, unsigned threads) {
  std::vector<std::int64_t> out(threads, -1);
  std::istringstream in(read_text_file(path));
  std::string w1, w2, w3;
  unsigned t = 0;
  std::uint64_t records = 0;
  std::int64_t stuck = -1;
  while (in >> w1 >> t >> w2 >> records >> w3 >> stuck) {
    if (t < threads) out[t] = stuck;
  }
  return out;
}

std::map<std::string, std::string> read_messages(const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(read_text_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab != std::string::npos) out.emplace(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

}  // namespace

RunRecords load_run_records(const RunFacts& facts) {
  RunRecords out;
  const auto in_dir = [&](const std::string& name) {
    return fmt::format("{}/{}", facts.run_dir, name);
  };
  for (std::size_t k = 0; k < facts.nodes.size(); ++k) {
    const int node = static_cast<int>(k);
    auto& incarnations = out.nodes.emplace_back();
    for (std::size_t i = 0; i < facts.nodes[k].incarnations.size(); ++i) {
      const int inc = static_cast<int>(i);
      const unsigned threads = facts.nodes[k].incarnations[i].threads;
      IncarnationRecords& r = incarnations.emplace_back();
      for (unsigned t = 0; t < threads; ++t) {
        r.threads.push_back(fault::read_records(in_dir(record_file_name(node, inc, static_cast<int>(t)))));
      }
      r.stuck_since_true_ns = read_done(in_dir(done_file_name(node, inc)), threads);
      r.messages = read_messages(in_dir(messages_file_name(node, inc)));
      r.probe = read_fixed<ProbeSample>(in_dir(probe_file_name(node, inc)));
    }
  }
  return out;
}

}  // namespace idbench::chaos
