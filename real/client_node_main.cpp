// client_node_main.cpp — idbench-real-client: the process a real-chaos scenario starts per
// client (client_node.hpp). Started by real::ClientPool; not meant to be run by hand.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "external/exec_options.hpp"
#include "real/client_node.hpp"

namespace {

// KEY=VALUE with a non-empty key: an entry of the adapter's environment.
const CLI::Validator kEnvEntry(
    [](std::string& entry) {
      const auto eq = entry.find('=');
      return eq == std::string::npos || eq == 0 ? "'" + entry + "' is not KEY=VALUE"
                                                : std::string();
    },
    "KEY=VALUE", "environment entry");

}  // namespace

int main(int argc, char** argv) {
  using namespace idbench;
  real::ClientNodeConfig c;
  std::string layout = "twitter";
  std::vector<std::string> env;
  external::ExecArgs exec;
  CLI::App app{"idbench-real-client: one client of `idbench real-chaos` (started by it)"};
  app.add_option("--index", c.index, "the node's index in its pool")->required();
  app.add_option("--incarnation", c.incarnation, "how many times this node restarted");
  app.add_option("--client", c.client, "the client's number (its adapters' node id is one more)")
      ->required();
  app.add_option("--out-dir", c.out_dir, "where the records go")->required();
  app.add_option("--adapter-stderr", c.adapter_stderr, "the file the adapters' stderr is "
                 "appended to")->required();
  app.add_option("--layout", layout, "--exec --id-time layout: the layout of its IDs");
  app.add_option("--env", env, "KEY=VALUE added to the adapter's environment (repeatable)")
      ->check(kEnvEntry)
      ->allow_extra_args(false);
  external::add_exec_options(&app, exec)->required();
  try {
    app.parse(argc, argv);
    c.exec = external::to_exec_spec(exec, layout);
    c.exec.env = env;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "idbench-real-client: %s\n", e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "idbench-real-client: %s\n", e.what());
    return 2;
  }
  return real::run_client_node(c);
}
