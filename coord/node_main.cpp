// node_main.cpp — idbench-coord-node: the process a worker-id run starts per node (node.hpp).
#include <CLI/CLI.hpp>

#include "coord/node.hpp"

int main(int argc, char** argv) {
  using namespace idbench::coord;
  CoordNodeConfig c;
  std::string behaviour = "unfenced", endpoints, worker_ids = "etcd";
  CLI::App app{"idbench-coord-node: one worker-id node (started by idbench worker-ids)"};
  app.add_option("--index", c.index)->required();
  app.add_option("--variant", c.variant)->required();
  app.add_option("--layout", c.layout);
  app.add_option("--behaviour", behaviour);
  app.add_option("--worker-ids", worker_ids);
  app.add_option("--static-id", c.static_id);
  app.add_option("--endpoints", endpoints);
  app.add_option("--prefix", c.prefix);
  app.add_option("--ttl", c.ttl_s);
  app.add_option("--margin-ms", c.margin_ms);
  app.add_option("--ids-per-ms", c.ids_per_ms);
  app.add_option("--inject-pause-at-ms", c.inject_pause_at_ms);
  app.add_option("--inject-pause-ms", c.inject_pause_ms);
  app.add_option("--out-dir", c.out_dir)->required();
  try {
    app.parse(argc, argv);
    const auto named = behaviour_named(behaviour);
    if (!named) throw CLI::ValidationError("--behaviour", behaviour);
    c.behaviour = *named;
    c.etcd = worker_ids == "etcd";
    if (c.etcd) c.endpoints = parse_endpoints(endpoints);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "idbench-coord-node: %s\n", e.what());
    return 2;
  } catch (const idbench::Error& e) {
    std::fprintf(stderr, "idbench-coord-node: %s\n", e.what());
    return 2;
  }
  return run_coord_node(c);
}
