// run_text.cpp — locality results as text tables (see run_text.hpp).
#include "bench/locality/run_text.hpp"

#include <fmt/format.h>

namespace idbench::locality {

void print_run(const RunResult& result, std::ostream& out) {
  const Metrics& m = result.metrics;
  auto f = [](const auto& v, const char* fmtstr) {
    return v ? fmt::format(fmt::runtime(fmtstr), *v) : std::string("n/a");
  };
  out << fmt::format("stream                 {}\n", result.description);
  out << fmt::format("engine                 {} {}\n", m.engine, m.engine_version);
  out << fmt::format("rows                   {} ({})\n", m.rows, name_of(m.key_type));
  out << fmt::format("leaf_pages             {}\n", f(m.leaf_pages, "{}"));
  out << fmt::format("avg_leaf_fill          {}\n",
                     m.avg_leaf_fill ? fmt::format("{:.1f} %", 100 * *m.avg_leaf_fill) : "n/a");
  out << fmt::format("splits_per_1k          {}\n", f(m.splits_per_1k, "{:.2f}"));
  out << fmt::format("height                 {}\n", f(m.height, "{}"));
  out << fmt::format("distinct_leaves_per_1k {}\n", f(m.distinct_leaves_per_1k, "{:.1f}"));
  out << fmt::format("pool_miss_rate         {}\n",
                     m.pool_miss_rate ? fmt::format("{:.3f} (LRU of {} leaf pages)",
                                                    *m.pool_miss_rate, *m.pool_pages)
                                      : "n/a");
  std::uint64_t table_leaf = m.leaf_pages.value_or(0);
  for (const auto& i : m.secondary) {
    out << fmt::format("secondary {:<12} {} leaf pages, {:.1f} % fill\n", i.name, i.leaf_pages,
                       100 * i.avg_leaf_fill);
    table_leaf += i.leaf_pages;
  }
  if (!m.secondary.empty()) out << fmt::format("table leaf pages       {}\n", table_leaf);
  if (m.inserts_per_s) {
    out << fmt::format("model speed            {:.2f} M inserts/s\n", *m.inserts_per_s / 1e6);
  }
}

void print_validation(const ValidationReport& report, std::ostream& out) {
  auto leaf = [](const std::optional<Metrics>& m) {
    return m ? fmt::format("{}", *m->leaf_pages) : std::string("-");
  };
  auto fill = [](const std::optional<Metrics>& m) {
    return m && m->avg_leaf_fill ? fmt::format("{:.1f}", 100 * *m->avg_leaf_fill)
                                 : std::string("-");
  };
  out << fmt::format(
      "{:<40} {:<8} {:>5} {:>7} {:>7} {:>7} {:>5} {:>4} | {:>6} {:>6} | {:>7} {:>6} | {:>7} "
      "{:>6}\n",
      "stream", "key", "row B", "model", "InnoDB", "err%", "tol%", "ok", "model%", "InnoDB%",
      "SQLite", "fill%", "PG", "fill%");
  for (const auto& r : report.rows) {
    const auto err = r.error();
    out << fmt::format(
        "{:<40} {:<8} {:>5} {:>7} {:>7} {:>7} {:>5.0f} {:>4} | {:>6.1f} {:>6} | {:>7} {:>6} | "
        "{:>7} {:>6}\n",
        r.stream.label, name_of(r.key_type), r.payload_bytes, *r.model.leaf_pages,
        leaf(r.innodb),
        err ? fmt::format("{:+.1f}", 100 * *err) : "-", 100 * r.tolerance,
        r.innodb ? (r.pass() ? "ok" : "FAIL") : "-", 100 * *r.model.avg_leaf_fill, fill(r.innodb),
        leaf(r.sqlite), fill(r.sqlite), leaf(r.postgres), fill(r.postgres));
  }
  for (const auto& r : report.rows) {
    const auto errors = r.secondary_errors();
    for (std::size_t i = 0; i < errors.size(); ++i) {
      const auto& real = r.innodb && i < r.innodb->secondary.size()
                             ? std::optional(r.innodb->secondary[i])
                             : std::nullopt;
      out << fmt::format("  {:<38} {:<10} model {:>7} InnoDB {:>7} err {:>6}  fill {:.1f} %\n",
                         r.stream.label, r.model.secondary[i].name, r.model.secondary[i].leaf_pages,
                         real ? fmt::format("{}", real->leaf_pages) : "-",
                         errors[i] ? fmt::format("{:+.1f}%", 100 * *errors[i]) : "-",
                         100 * r.model.secondary[i].avg_leaf_fill);
    }
  }
  for (const auto& u : report.unavailable) out << "note: " << u << "\n";
  if (!report.innodb_ran) {
    out << "InnoDB cross-check not run: the model was not validated.\n";
  } else {
    out << (report.pass() ? "model agrees with InnoDB on every stream\n"
                          : "model DISAGREES with InnoDB beyond tolerance\n");
  }
}

}  // namespace idbench::locality
