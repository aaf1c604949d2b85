# Sequential specifications for the linearizability checker (standard library only; the etcd
# model uses the plain request/response structs of kv/types.h, header-only).
add_library(lockstep_model
  ${CMAKE_CURRENT_LIST_DIR}/mutex.cc
  ${CMAKE_CURRENT_LIST_DIR}/register.cc
  ${CMAKE_CURRENT_LIST_DIR}/kv_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/etcd_kv.cc)
target_link_libraries(lockstep_model PRIVATE lockstep_warnings)

lockstep_add_test(model_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/mutex_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/register_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/etcd_kv_test.cc
  LIBS lockstep_model lockstep_kv)
