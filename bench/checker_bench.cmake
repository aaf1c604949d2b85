# The linearizability checker's benchmark (see checker_bench.h). The library lets a later
# `lockstep bench` include the same figures.
add_library(lockstep_checker_bench ${CMAKE_CURRENT_LIST_DIR}/checker_bench_lib.cc
            ${CMAKE_CURRENT_LIST_DIR}/cas_history_gen.cc ${CMAKE_CURRENT_LIST_DIR}/hard_bench.cc)
target_link_libraries(lockstep_checker_bench PUBLIC lockstep_checker PRIVATE lockstep_warnings)

add_executable(checker_bench ${CMAKE_CURRENT_LIST_DIR}/checker_bench.cc)
target_link_libraries(checker_bench PRIVATE lockstep_checker_bench lockstep_warnings)
target_compile_definitions(checker_bench PRIVATE
  LOCKSTEP_PORCUPINE_DATA_DIR="${PROJECT_SOURCE_DIR}/testdata/porcupine")

# The hard benchmark: generated CAS-register histories (cas_history_gen.h, hard_bench.h).
add_executable(checker_hard_bench ${CMAKE_CURRENT_LIST_DIR}/checker_hard_bench.cc)
target_link_libraries(checker_hard_bench PRIVATE lockstep_checker_bench lockstep_warnings)
lockstep_add_test(bench_tests SOURCES ${CMAKE_CURRENT_LIST_DIR}/cas_history_gen_test.cc
                  LIBS lockstep_checker_bench)
