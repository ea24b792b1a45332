// fixed_run.hpp — a RapidCheck property run the same way every time, for tests that expect it
// to fail (a planted defect) as well as pass: a fixed seed and number of cases, no shrinking
// (a failure is reported as found), and no note at exit.
//
// Thread safety: call from one thread.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <string>

namespace idbench::property {

// Not RapidCheck's default listener: it would add the failures these tests expect to the "some
// properties had failures, reproduce with …" note it prints at exit.
struct QuietListener final : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

inline rc::detail::TestResult run_fixed(const std::function<void()>& property,
                                        const std::string& description, int cases) {
  rc::detail::TestParams params;
  params.seed = 20'261'202;
  params.maxSuccess = cases;
  params.disableShrinking = true;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = description;
  QuietListener listener;
  return rc::detail::checkTestable(property, metadata, params, listener);
}

}  // namespace idbench::property
