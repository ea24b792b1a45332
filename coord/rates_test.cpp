// rates_test.cpp — etcdctl check perf's verdicts are kept and its progress bar is not.
#include "coord/rates.hpp"

#include <gtest/gtest.h>

namespace idbench::coord {
namespace {

TEST(CheckPerfVerdicts, TheProgressBarBeforeTheFirstVerdictIsDropped) {
  // As etcdctl 3.4.23 printed it here: the bar redraws with '\r', the verdicts follow on.
  const std::string out =
      "\r 0 / 60    0.00%\r 1 / 60    1.67% 01m00s\r 59 / 60   98.33%PASS: Throughput is 145 "
      "writes/s\nSlowest request took too long: 0.748558s\nPASS: Stddev is 0.048516s\nFAIL\n";
  EXPECT_EQ(check_perf_verdicts(out),
            "PASS: Throughput is 145 writes/s\nSlowest request took too long: 0.748558s\n"
            "PASS: Stddev is 0.048516s\nFAIL\n");
  const std::string low = "\r 60 / 60  100.00%FAIL: Throughput too low: 12 writes/s\nFAIL\n";
  EXPECT_EQ(check_perf_verdicts(low), "FAIL: Throughput too low: 12 writes/s\nFAIL\n");
  const std::string errors = "\r 60 / 60  100.00%FAIL: too many errors\nFAIL: ERROR(x) -> 3\n"
                             "FAIL: Throughput too low: 12 writes/s\nFAIL\n";
  EXPECT_EQ(check_perf_verdicts(errors), errors.substr(errors.find("FAIL: too")));
}

TEST(CheckPerfVerdicts, AnErrorWithoutVerdictsIsKeptWhole) {
  const std::string err = "Error: context deadline exceeded\n";
  EXPECT_EQ(check_perf_verdicts(err), err);
}

}  // namespace
}  // namespace idbench::coord
