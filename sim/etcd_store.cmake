# The simulated etcd's MVCC store and lessor; included by sim/CMakeLists.txt.
set(LOCKSTEP_SIM_STORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/etcd_store.cc)
set(LOCKSTEP_SIM_STORE_TESTS ${CMAKE_CURRENT_LIST_DIR}/etcd_store_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/etcd_store_property_test.cc)
