# The linearizability checker, its history adapters, the Porcupine importers and the whole
# check of a history file (`lockstep check`'s options and printing are in cli/). Included by checker/CMakeLists.txt after lockstep_checker exists.
set(LOCKSTEP_LINEARIZABILITY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/linearizability.cc
  ${CMAKE_CURRENT_LIST_DIR}/history_ops.cc
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_import.cc
  ${CMAKE_CURRENT_LIST_DIR}/linearizability_check.cc)
set(LOCKSTEP_LINEARIZABILITY_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/linearizability_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/brute_force_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_test.cc)

# The tests read Porcupine's histories from testdata/porcupine (a copy kept in the repository).
set_source_files_properties(
  ${CMAKE_CURRENT_LIST_DIR}/porcupine_test.cc
  PROPERTIES COMPILE_DEFINITIONS
  "LOCKSTEP_PORCUPINE_DATA_DIR=\"${PROJECT_SOURCE_DIR}/testdata/porcupine\"")
