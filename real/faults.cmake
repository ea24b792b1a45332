# real/faults.cmake — the fault scenarios on the real systems (faults.hpp)
# and their tests; included from real/CMakeLists.txt. `idbench real-chaos` is the thin command
# line over it (cli/real_chaos_command.cpp).

# One client of a scenario as a node process (client_node.hpp): the pool (faults_clients.hpp)
# starts one idbench-real-client per client, found beside the running executable.
add_library(idbench_real_client_node STATIC client_node.cpp)
target_include_directories(idbench_real_client_node PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(idbench_real_client_node PUBLIC idbench_external idbench_fault PRIVATE fmt::fmt)
add_executable(idbench-real-client client_node_main.cpp)
target_link_libraries(idbench-real-client PRIVATE idbench_real_client_node idbench_exec_options
                                                  CLI11::CLI11)

add_library(idbench_real_faults STATIC
  faults.cpp faults_analysis.cpp faults_clients.cpp faults_judge.cpp faults_json.cpp
  faults_text.cpp fsync_stall_nemesis.cpp link_partition.cpp server_clock_attach.cpp server_clock_nemesis.cpp server_nemesis.cpp
  snapshot_nemesis.cpp)
target_include_directories(idbench_real_faults PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(idbench_real_faults
  PUBLIC idbench_real idbench_external idbench_chaos idbench_check idbench_fault
         idbench_real_client_node idbench_exec_options nlohmann_json::nlohmann_json
  PRIVATE fmt::fmt)
# The scenarios run the database adapters, in client nodes started from the pool's directory,
# and under --clock-injector ptrace idbench-inject beside the running executable.
add_dependencies(idbench_real_faults idbench-mariadb-adapter idbench-postgres-adapter
                 idbench-redis-adapter idbench-real-client idbench-inject)

# Figures and verdicts on planted records: no servers.
idbench_test(faults_judge_test SOURCES faults_judge_test.cpp LIBS idbench_real_faults)
# A starved part played again, then named the machine's fault: fake adapters, no servers.
idbench_test(faults_starved_test SOURCES faults_starved_test.cpp LIBS idbench_real_faults CONCURRENT)
# A client node and the pool of them on planted adapters (sh): records, restarts, kill -9,
# counts while running, nothing left after a stop or an exception. No servers.
idbench_test(real_client_node_test SOURCES client_node_test.cpp LIBS idbench_real_faults)

# Real servers (skipped without MariaDB). Every test of the group runs with TMPDIR set to one
# private directory; the fixture cleanup fails if a process or a directory refers to it after.
set(faults_tmp ${CMAKE_BINARY_DIR}/faults-tmp)
add_test(NAME faults_tmp_made COMMAND ${CMAKE_COMMAND} -E make_directory ${faults_tmp})
set_tests_properties(faults_tmp_made PROPERTIES LABELS unit FIXTURES_SETUP real_faults)
# A gtest binary on real servers: each case one ctest of the group. (A PostgreSQL server, which
# runs as nobody when the tests run as root, goes to /tmp when nobody cannot reach this
# directory, as in a checkout made in `mktemp -d`: plumbing/temp_dir.hpp.)
function(real_server_test name source)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE idbench_real_faults GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS unit FIXTURES_REQUIRED real_faults TIMEOUT 180
                                          ENVIRONMENT TMPDIR=${faults_tmp} DISCOVERY_TIMEOUT 60)
endfunction()
real_server_test(faults_mariadb_test faults_mariadb_test.cpp)
# The server nemesis on one real mariadbd: a kill leaves no server, a start answers again.
real_server_test(server_nemesis_test server_nemesis_test.cpp)
# The snapshot nemesis on one real mariadbd: a restore takes its counter back; a planted restore
# that only records is caught.
real_server_test(snapshot_nemesis_test snapshot_nemesis_test.cpp)
# The server clock nemesis on one real mariadbd under libfaketime: a step moves its SYSDATE();
# a planted step that only records is caught.
real_server_test(server_clock_nemesis_test server_clock_nemesis_test.cpp)
# The fsync stall on one real redis-server (everysec): a held fsync thread makes it postpone
# its writes, a release ends that, a freeze hands the server to a kill -9.
real_server_test(fsync_stall_nemesis_test fsync_stall_nemesis_test.cpp)
# The replication link's relay and its partition, on plain loopback sockets: bytes sent after
# the partition never arrive; the control without it sees them arrive.
idbench_test(link_partition_test SOURCES link_partition_test.cpp LIBS idbench_real_faults)
add_test(NAME faults_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_cli_test.sh
                                 $<TARGET_FILE:idbench>)
set_tests_properties(faults_cli PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 180
                     FIXTURES_REQUIRED real_faults ENVIRONMENT TMPDIR=${faults_tmp})
add_test(NAME faults_left_nothing
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_left_nothing.sh ${faults_tmp})
set_tests_properties(faults_left_nothing PROPERTIES LABELS unit FIXTURES_CLEANUP real_faults)
# uuid-clock-back under --clock-injector ptrace: idbench-inject attached to the RUNNING servers
# (same pid throughout), the probe shows the step, UUID()'s time does not follow it; nothing left.
real_server_test(faults_ptrace_test faults_ptrace_test.cpp)
# PostgreSQL and Redis servers and the schemes on them (skipped when not installed): durability
# stated, kill -9 and restart, a restore, every scheme's IDs through its adapter.
real_server_test(servers_test servers_test.cpp)
# kill -9 on real PostgreSQL and Redis servers: Redis under RDB only must be caught repeating
# values; appendfsync always and a PostgreSQL sequence (synchronous_commit on) are kept. A step
# back of postgres's clock: Instagram's duplicates as the arithmetic predicts.
real_server_test(faults_servers_test faults_servers_test.cpp)
# `idbench real` on a PostgreSQL and a Redis system, killed with -9 and interrupted: no server
# or adapter left, the killed run's directory (and SysV segment) swept by the next.
foreach(kind postgres redis)
  add_test(NAME real_${kind}_leaves_nothing
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/servers_left_nothing.sh $<TARGET_FILE:idbench>
                   ${kind})
  set_tests_properties(real_${kind}_leaves_nothing PROPERTIES
    LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED locality_engines)
endforeach()
