// catalog_json_test — `idbench list --json` parses and carries every variant's whole description.
#include "real/catalog_json.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "generators/layout.hpp"
#include "real/systems.hpp"

namespace idbench::real {
namespace {

// The output of the real binary's `list` with `args`.
std::string run_list(const std::string& args) {
  std::FILE* pipe = ::popen((IDBENCH_BIN " list " + args).c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  EXPECT_EQ(::pclose(pipe), 0);
  return out;
}

const nlohmann::json* find_named(const nlohmann::json& list, std::string_view name) {
  for (const auto& item : list) {
    if (item.at("name") == name) return &item;
  }
  return nullptr;
}

TEST(ListJson, TheBinaryPrintsTheCatalog) {
  const nlohmann::json doc = nlohmann::json::parse(run_list("--json"));  // throws unless JSON
  EXPECT_EQ(doc, nlohmann::json::parse(catalog_json().dump()));
}

// A Sonyflake v1 ID read as v2 decodes ~10 years late; the listing says which is which.
TEST(ListText, NamesTheSonyflakeVersionOfEachPreset) {
  const std::string text = run_list("");
  EXPECT_NE(text.find("sonyflake     ts=39"), std::string::npos) << text;
  EXPECT_NE(text.find("(Sonyflake v2)"), std::string::npos) << text;
  EXPECT_NE(text.find("sonyflake-v1  ts=39"), std::string::npos) << text;
  EXPECT_NE(text.find("(Sonyflake v1)"), std::string::npos) << text;
}

TEST(ListJson, CarriesEveryFieldOfEveryVariant) {
  const nlohmann::json doc = nlohmann::json::parse(catalog_json().dump());
  ASSERT_EQ(doc.at("variants").size(), variants().size());
  for (const auto& v : variants()) {
    const nlohmann::json* j = find_named(doc.at("variants"), v.name);
    ASSERT_NE(j, nullptr) << v.name;
    EXPECT_EQ(j->at("summary"), v.summary);
    EXPECT_EQ(j->at("family"), v.family);
    EXPECT_EQ(j->at("scheme"), v.scheme);
    EXPECT_EQ(j->at("width_bits"), v.width == IdWidth::bits64 ? 64 : 128);
    EXPECT_EQ(j->at("ordering"), name_of(v.ordering));
    EXPECT_EQ(j->at("time_based"), v.time_based);
    EXPECT_EQ(j->at("uses_layout"), v.uses_layout);
    EXPECT_EQ(j->at("node_ids"), name_of(v.node_ids));
    EXPECT_EQ(j->at("id_time"), name_of(v.id_time));
    EXPECT_EQ(j->at("in_process_lower_bound"), v.in_process_lower_bound);
    EXPECT_EQ(j->at("own_clock"), v.own_clock);
    EXPECT_EQ(j->at("defaults").at("chaos"), v.defaults.chaos);
    EXPECT_EQ(j->at("defaults").at("chaos_quick"), v.defaults.chaos_quick);
    EXPECT_EQ(j->at("defaults").at("locality"), v.defaults.locality);
    EXPECT_EQ(j->at("defaults").at("clock_sequence"), v.defaults.clock_sequence);
    EXPECT_EQ(j->at("defaults").at("clock_sequence_quick"), v.defaults.clock_sequence_quick);
    EXPECT_EQ(j->at("defaults").at("locality_live_pace"), v.defaults.locality_live_pace);
    EXPECT_EQ(j->at("defaults").size(), 6u) << v.name;  // every MatrixDefaults field
    // Every key is one of the above: a field added to Variant must be added here too.
    EXPECT_EQ(j->size(), 13u) << v.name;
  }
}

TEST(ListJson, CarriesEveryLayoutAndPolicy) {
  const nlohmann::json doc = nlohmann::json::parse(catalog_json().dump());
  for (const auto& p : Layout::presets()) {
    const nlohmann::json* j = find_named(doc.at("layouts"), p.name);
    ASSERT_NE(j, nullptr) << p.name;
    EXPECT_EQ(j->at("summary"), p.summary);
    EXPECT_FALSE(j->at("spec").get<std::string>().empty());
  }
  for (const auto& p : policy_catalog()) {
    const nlohmann::json* j = find_named(doc.at("policies"), p.name);
    ASSERT_NE(j, nullptr) << p.name;
    EXPECT_EQ(j->at("default_bound_ms"), p.default_bound_ms);
  }
}

// Scripts find the real systems, their scheme row and their servers in the catalog.
TEST(ListJson, CarriesEveryRealSystem) {
  const nlohmann::json doc = nlohmann::json::parse(catalog_json().dump());
  ASSERT_EQ(doc.at("systems").size(), real::real_systems().size());
  for (const auto& s : real::real_systems()) {
    const nlohmann::json* j = find_named(doc.at("systems"), s.name);
    ASSERT_NE(j, nullptr) << s.name;
    EXPECT_EQ(j->at("scheme"), s.scheme);
    EXPECT_EQ(j->at("lower_bound_variant"), s.lower_bound_variant);
    EXPECT_EQ(j->at("server_kind"), name_of(s.server_kind));
    EXPECT_EQ(j->at("servers"), s.servers);
    EXPECT_EQ(j->at("server_settings").size(), static_cast<std::size_t>(s.servers));
    EXPECT_EQ(j->at("command"), s.exec.command);
    EXPECT_EQ(j->at("ordering"), name_of(s.exec.ordering));
  }
  const nlohmann::json* pair = find_named(doc.at("systems"), "mariadb-ticket-pair-myisam");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->at("server_settings").at(1).at("auto_increment_offset"), 2);
  EXPECT_EQ(pair->at("server_settings").at(1).at("auto_increment_increment"), 2);
  EXPECT_NE(run_list("").find("mariadb-auto-increment"), std::string::npos);
}

// A system whose IDs carry a layout names one idbench can decode: a layout typed wrong in the
// registry would otherwise surface only when `real` or `chaos` first decodes its IDs.
TEST(ListJson, RealSystemLayoutsParse) {
  int layouts = 0;
  for (const auto& s : real::real_systems()) {
    if (s.exec.id_time != IdTime::layout) continue;
    ++layouts;
    EXPECT_NO_THROW(Layout::parse(s.exec.layout)) << s.name << ": '" << s.exec.layout << "'";
  }
  EXPECT_GE(layouts, 5) << "the Snowflake systems (npm) carry layouts";
}

}  // namespace
}  // namespace idbench::real
