// verdict_json_test.cpp — a verdict's JSON object: the outcome's word, the passed flag, the
// evidence line and the findings, under the keys the report and the gate read.
#include "fault/verdict_json.hpp"

#include <gtest/gtest.h>

namespace idbench::fault {
namespace {

TEST(FaultVerdictJson, CarriesTheWordThePassedFlagTheEvidenceAndTheFindings) {
  const nlohmann::ordered_json j = to_json(Verdict{.outcome = Outcome::duplicates,
                                                   .evidence = "duplicates issued: 3",
                                                   .findings = {"node 0 issued 7 zombie IDs"}});
  EXPECT_EQ(j.dump(), R"({"verdict":"DUPLICATES","passed":false,)"
                      R"("evidence":"duplicates issued: 3","findings":["node 0 issued 7 zombie IDs"]})");
}

TEST(FaultVerdictJson, APassingVerdictSaysSoAndItsFindingsAreAnEmptyArray) {
  const nlohmann::ordered_json j = to_json(
      Verdict{.outcome = Outcome::kept, .evidence = "0 of 9", .findings = {}});
  EXPECT_EQ(j["verdict"], "kept");
  EXPECT_EQ(j["passed"], true);
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_TRUE(j["findings"].empty());
}

// A document built as nlohmann::json (coord's run JSON) takes the ordered object as it is.
TEST(FaultVerdictJson, ConvertsIntoAnUnorderedDocument) {
  const nlohmann::json doc = {{"verdict", to_json(
      Verdict{.outcome = Outcome::no_evidence, .evidence = "", .findings = {}})}};
  EXPECT_EQ(doc["verdict"]["verdict"], "no evidence");
  EXPECT_EQ(doc["verdict"]["passed"], false);
}

}  // namespace
}  // namespace idbench::fault
