// db_server_test.cpp — a server that fails to start is named in one readable line.
#include "plumbing/db_server.hpp"

#include <gtest/gtest.h>

#include <string>

#include "plumbing/error.hpp"

namespace idbench::plumbing {
namespace {

std::string error_of(auto&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A multi-line log was shown with its newlines escaped ("…exited during start-up:\n2026-12-…
// [Note] …\n[ERROR] …"), the cause buried at the end of one long escaped line.
TEST(DbServer, AServerThatExitsAtStartUpIsNamedWithItsLastLogLines) {
  DbServer db("idbench-dbserver-test", std::nullopt);
  const std::string what = error_of([&] {
    db.start({"/bin/sh", "-c",
              "i=0; while [ $i -lt 50 ]; do echo note $i; i=$((i+1)); done; "
              "echo '[ERROR] Can not bind the socket' >&2; exit 1"},
             {"/bin/false"}, "toy server");
  });
  EXPECT_NE(what.find("toy server exited during start-up"), std::string::npos) << what;
  EXPECT_NE(what.find("[ERROR] Can not bind the socket"), std::string::npos) << what;
  EXPECT_EQ(what.find("\\n"), std::string::npos) << "newlines shown escaped: " << what;
  EXPECT_EQ(what.find("note 10"), std::string::npos) << "the whole log, not its end: " << what;
}

TEST(DbServer, AFailedInitialisationIsNamedWithWhatItPrinted) {
  DbServer db("idbench-dbserver-test", std::nullopt);
  const std::string what = error_of([&] {
    db.init({"/bin/sh", "-c", "echo 'creating directories'; echo 'initdb: disk full' >&2; exit 3"},
            "initdb");
  });
  EXPECT_NE(what.find("initdb failed"), std::string::npos) << what;
  EXPECT_NE(what.find("initdb: disk full"), std::string::npos) << what;
  EXPECT_EQ(what.find("\\n"), std::string::npos) << "newlines shown escaped: " << what;
}

}  // namespace
}  // namespace idbench::plumbing
