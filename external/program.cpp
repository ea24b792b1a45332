// program.cpp — one external program speaking the line protocol: start, round trips, errors
// that name the command and the line, and an end that leaves nothing running.
#include "external/program.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cstdlib>
#include <utility>

#include "check/id_text.hpp"
#include "plumbing/child_process.hpp"

extern char** environ;

namespace idbench::external {
namespace {

constexpr std::int64_t kExitGraceNs = 2'000'000'000;  // after EOF, before SIGTERM
constexpr std::int64_t kTermGraceNs = 1'000'000'000;  // after SIGTERM, before SIGKILL
constexpr std::int64_t kReapAfterEofNs = 1'000'000'000;  // to learn an exit status

std::string width_name(IdWidth w) {
  return w == IdWidth::bits64 ? "64-bit decimal IDs" : "UUIDs";
}

// The executable's path: `word` itself when it has a slash, else the first on $PATH; an Error
// saying why there is none.
std::string resolve(const std::string& word) {
  if (word.empty()) throw Error("the program is empty");
  if (word.find('/') == std::string::npos) {
    std::string path = plumbing::find_program(word);
    if (path.empty()) throw Error(fmt::format("'{}' not found on $PATH", word));
    return path;
  }
  struct stat st {};
  if (::stat(word.c_str(), &st) != 0) {
    throw Error(errno == ENOENT ? fmt::format("'{}' not found", word)
                                : fmt::format("'{}': {}", word, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("'{}' is a directory, not a program", word));
  if (!S_ISREG(st.st_mode)) throw Error(fmt::format("'{}' is not a regular file", word));
  if (::access(word.c_str(), X_OK) != 0) throw Error(fmt::format("'{}' is not executable", word));
  return word;
}

// Our environment with IDBENCH_NODE_ID and the spec's entries set (replacing ours).
std::vector<std::string> child_env(const ExecSpec& spec, std::uint64_t node_id) {
  std::vector<std::string> set = spec.env;
  set.push_back(fmt::format("{}={}", kNodeIdEnv, node_id));
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& s : set) replaced = replaced || std::string_view(s).substr(0, s.find('=')) == key;
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

std::string status_text(int status, bool signalled) {
  if (!signalled) return fmt::format("exited with status {}", status);
  const int sig = status - 128;
  const char* name = ::sigabbrev_np(sig);
  return fmt::format("was killed by signal {} (SIG{})", sig, name != nullptr ? name : "?");
}

}  // namespace

std::vector<std::string> split_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto unbalanced = [&](char quote) {
    return Error(fmt::format("unbalanced {} quote in {}", quote, quote_text(command)));
  };
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::exchange(word, {}));
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {  // '...': every byte as it is
      const std::size_t close = command.find('\'', i + 1);
      if (close == std::string_view::npos) throw unbalanced(c);
      word.append(command.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {  // "...": \" and \\ are escapes
      std::size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        const bool escape = command[j] == '\\' && j + 1 < command.size() &&
                            (command[j + 1] == '"' || command[j + 1] == '\\');
        word += command[escape ? ++j : j];
      }
      if (j >= command.size()) throw unbalanced(c);
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) throw Error("the program is empty");
  return words;
}

std::vector<std::string> program_argv(std::string_view command) {
  std::vector<std::string> argv = split_command(command);
  argv[0] = resolve(argv[0]);
  return argv;
}

struct Program::State {
  ExecSpec spec;
  std::string who;  // "program 'CMD' (pid N)", for messages
  std::unique_ptr<plumbing::ChildProcess> child;
  std::optional<IdWidth> width;
  std::uint64_t lines = 0;  // lines of its output read so far
  std::uint64_t last_request = 0;
  std::string dead;         // why it stopped answering; empty while it works

  [[noreturn]] void fail(const std::string& what) {
    dead = fmt::format("{}: {}", who, what);
    if (child->running()) child->kill_and_reap();
    throw ProgramError(dead);
  }
  // The ID on line `lines`, or fail() naming the line.
  Id parse(const std::string& text);
  // It printed more lines than the `n` IDs asked: the protocol is one line per ID asked.
  [[noreturn]] void extra(std::uint64_t n) {
    fail(fmt::format("printed more lines than the {} IDs asked (line {} is one too many)", n,
                     lines + 1));
  }
  // The output ended (EOF) or the deadline passed after `got` of `n` IDs.
  [[noreturn]] void no_answer(std::uint64_t got, std::uint64_t n, std::int64_t deadline);
};

Id Program::State::parse(const std::string& text) {
  const std::string where = fmt::format("line {} of its output", lines);
  if (!width) {
    const WidthGuess guess = infer_id_width(text);
    if (!guess.width) fail(fmt::format("{} is not an ID: {}", where, guess.problem));
    width = guess.width;
  }
  if (auto id = parse_id_text(text, *width)) return *id;
  const WidthGuess other = infer_id_width(text);
  if (other.width && other.width != width) {
    const std::string told = spec.width ? "it was described (--id-bits, --id-time) as printing"
                                        : "its first ID showed";
    fail(fmt::format("{} mixes widths: {} is one of the {}, but {} {}", where, quote_text(text),
                     width_name(*other.width), told, width_name(*width)));
  }
  fail(fmt::format("{} is not an ID: {}", where, explain_bad_id(text, *width)));
}

void Program::State::no_answer(std::uint64_t got, std::uint64_t n, std::int64_t deadline) {
  // An interrupt's handler kills every program: one that ended then ended because of it, and a
  // thread that meets its closed pipe (not the signal, which another thread took) must unwind
  // as interrupted, not report a failed program and let what was read be committed.
  plumbing::throw_if_interrupted();
  const std::string count = fmt::format("{} of the {} IDs asked", got, n);
  // read_line gives up when less than 1 ms is left (it polls in whole ms).
  if (plumbing::monotonic_ns() + 1'000'000 >= deadline) {
    // `lines` counts this request's `got` too: what it answered in all before it stopped.
    const std::string stopped =
        lines > 0 ? fmt::format("stopped answering after {} IDs: ", lines) : "";
    fail(fmt::format("{}no answer within {} ms (--timeout-ms): it printed {}", stopped,
                     spec.timeout_ms, count));
  }
  if (const auto status = child->wait_until(plumbing::monotonic_ns() + kReapAfterEofNs)) {
    fail(fmt::format("{} after printing {} (its output ended at line {})",
                     status_text(*status, child->signalled()), count, lines));
  }
  fail(fmt::format("closed its output after printing {} (line {})", count, lines));
}

Program::Program(const ExecSpec& spec, std::uint64_t node_id) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.spec = spec;
  s.width = spec.width;
  const std::string named = fmt::format("program '{}'", spec.command);
  std::vector<std::string> argv;
  try {
    argv = program_argv(spec.command);
  } catch (const Error& e) {
    throw ProgramError(fmt::format("{}: cannot start: {}", named, e.what()));
  }
  // Contained: whatever it starts ends with it, even after a kill -9 of idbench.
  plumbing::ChildSpec child{argv,         child_env(spec, node_id), plumbing::Stdio::pipe(),
                            plumbing::Stdio::pipe(), plumbing::Stdio::inherit(), std::nullopt,
                            true};
  try {
    s.child = std::make_unique<plumbing::ChildProcess>(child);
  } catch (const ProgramError&) {
    throw;
  } catch (const Error& e) {
    throw ProgramError(fmt::format("{}: cannot start: {}", named, e.what()));
  }
  s.who = fmt::format("{} (pid {})", named, s.child->pid());
}

Program::~Program() {
  plumbing::ChildProcess& child = *state_->child;
  if (!child.running()) return;
  child.close_stdin();  // EOF: the protocol's "exit"; what it started ends with it
  if (child.wait_until(plumbing::monotonic_ns() + kExitGraceNs)) return;
  child.stop(kTermGraceNs);
}

void Program::request(std::uint64_t n, std::vector<Id>& out) {
  State& s = *state_;
  if (!s.dead.empty()) throw ProgramError(s.dead + " (stopped after that)");
  if (n == 0 || n > kMaxRequest) {
    throw Error(fmt::format("a request asks for 1..{} IDs, not {}", kMaxRequest, n));
  }
  const std::int64_t deadline = plumbing::monotonic_ns() + s.spec.timeout_ms * 1'000'000;
  // Lines nobody asked for (late ones of the last request) would be read as this request's.
  if (s.child->has_unread_output()) s.extra(s.last_request);
  s.last_request = n;
  try {
    s.child->send_line(std::to_string(n));
  } catch (const plumbing::Interrupted&) {
    throw;
  } catch (const Error&) {
    s.no_answer(0, n, deadline);  // it does not read its input: it has ended
  }
  const std::size_t before = out.size();
  try {
    for (std::uint64_t got = 0; got < n; ++got) {
      std::optional<std::string> line;
      try {
        line = s.child->read_line(deadline);
      } catch (const plumbing::LineTooLong&) {
        s.fail(fmt::format("printed a line over 1 MiB (line {} of its output)", s.lines + 1));
      }
      if (!line) s.no_answer(got, n, deadline);
      ++s.lines;
      out.push_back(s.parse(*line));
    }
    if (s.child->has_unread_output()) s.extra(n);
  } catch (...) {
    out.resize(before);  // all n IDs or none
    throw;
  }
}

pid_t Program::pid() const { return state_->child->pid(); }
const std::string& Program::command() const { return state_->spec.command; }
std::optional<IdWidth> Program::width() const { return state_->width; }

}  // namespace idbench::external
