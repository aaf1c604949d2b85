# The linearizability checker, its history adapters, the Porcupine importers, the whole
# check of a history file and of many at once (`lockstep check`'s options and printing are in
# cli/). Included by checker/CMakeLists.txt after lockstep_checker exists.
set(LOCKSTEP_LINEARIZABILITY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/linearizability.cc
  ${CMAKE_CURRENT_LIST_DIR}/linearization_search.cc
  ${CMAKE_CURRENT_LIST_DIR}/config_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/entry_list.cc
  ${CMAKE_CURRENT_LIST_DIR}/history_ops.cc
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_import.cc
  ${CMAKE_CURRENT_LIST_DIR}/linearizability_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/history_file_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/history_batch.cc)
set(LOCKSTEP_LINEARIZABILITY_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/linearizability_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/brute_force_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/linearization_search_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/config_cache_test.cc)

# The tests read Porcupine's histories from testdata/porcupine (a copy kept in the repository).
set_source_files_properties(
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_test.cc
  PROPERTIES COMPILE_DEFINITIONS
  "LOCKSTEP_PORCUPINE_DATA_DIR=\"${PROJECT_SOURCE_DIR}/testdata/porcupine\"")
