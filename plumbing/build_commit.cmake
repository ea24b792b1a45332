# build_commit.cmake — writes the commit a build compiles, as C++, at build time (cmake -P).
#
#   cmake -DSOURCE_DIR=<tree> -DOUT=<file.cpp> -P build_commit.cmake
#
# Run by every build (plumbing/CMakeLists.txt), so a binary names the commit it was built from
# (run_context.hpp). OUT is rewritten only when its text changes: a build at an unchanged
# commit recompiles and relinks nothing. "unknown" when git cannot tell (a tarball); dirty
# when tracked files differ from the commit, or when git cannot say (unsure means dirty).
cmake_minimum_required(VERSION 3.20)
foreach(var SOURCE_DIR OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_commit.cmake: -D${var}=... is required")
  endif()
endforeach()

set(commit "unknown")
set(dirty "false")
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --verify HEAD
                  RESULT_VARIABLE head_rc OUTPUT_VARIABLE head ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(head_rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(commit "${head}")
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    RESULT_VARIABLE status_rc OUTPUT_VARIABLE status ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT status_rc EQUAL 0 OR NOT status STREQUAL "")
      set(dirty "true")
    endif()
  endif()
endif()

set(text "// Written by plumbing/build_commit.cmake at build time: the commit this build compiled.
#include \"plumbing/run_context.hpp\"

namespace idbench::plumbing {
CommitInfo built_commit() { return {\"${commit}\", ${dirty}}; }
}  // namespace idbench::plumbing
")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
