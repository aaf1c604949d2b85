# Installing lockstep as a library: `cmake --install BUILD --prefix P` puts the static
# libraries, the public headers (P/include/lockstep/<folder>/*.h) and a CMake package in P, so that
# a user's project does `find_package(lockstep)` and links `lockstep::lockstep`
# (examples/lock-property is such a project; a CTest builds it against a fresh install).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# `lockstep` is the program's target name; the library's is lockstep_lib, exported as
# lockstep::lockstep.
add_library(lockstep_lib INTERFACE)
add_library(lockstep::lockstep ALIAS lockstep_lib)
set_target_properties(lockstep_lib PROPERTIES EXPORT_NAME lockstep)
target_link_libraries(lockstep_lib INTERFACE lockstep_harness)
target_compile_features(lockstep_lib INTERFACE cxx_std_20)
target_include_directories(lockstep_lib INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
if(CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  # Sanitized static libraries need the sanitizer runtime in whatever links them.
  target_compile_options(lockstep_lib INTERFACE -fsanitize=address,undefined)
  target_link_options(lockstep_lib INTERFACE -fsanitize=address,undefined)
endif()

set(lockstep_installed_targets lockstep_lib lockstep_harness lockstep_sim lockstep_algorithms
    lockstep_checker lockstep_kv_json lockstep_kv lockstep_warnings)
if(TARGET lockstep_model)
  list(APPEND lockstep_installed_targets lockstep_model)
endif()
if(LOCKSTEP_BUILD_REAL_ETCD)
  # The real-etcd runner comes with the library, as the simulated one does.
  target_link_libraries(lockstep_lib INTERFACE lockstep_real_run)
  list(APPEND lockstep_installed_targets lockstep_real_run lockstep_real_etcd lockstep_real_etcd_proto)
  # The generated protobuf headers are private to real_etcd/ (docs/architecture.md): keep their include
  # directory out of the installed interface.
  get_target_property(lockstep_proto_includes lockstep_real_etcd_proto INTERFACE_INCLUDE_DIRECTORIES)
  set_property(TARGET lockstep_real_etcd_proto PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               "$<BUILD_INTERFACE:${lockstep_proto_includes}>")
endif()

install(TARGETS ${lockstep_installed_targets} EXPORT lockstepTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The headers a user's project includes, and every project header they include in turn (the
# compiler lists them at configure time, so the installed set can neither miss one nor carry
# internals nobody reaches: the simulator's innards come along only because sim_runner.h
# reaches them).
set(lockstep_public_headers
  kv/node_context.h kv/task.h kv/kv_client.h kv/types.h kv/result.h kv/time.h kv/rng.h
  algorithms/lock.h algorithms/registry.h algorithms/session.h
  checker/history.h checker/mutex_checker.h checker/resource_checker.h checker/liveness_checker.h
  checker/linearizability_check.h
  harness/sim_runner.h harness/scenario.h harness/scenario_gen.h harness/scenario_prop.h
  harness/replay.h harness/explore.h harness/shrink.h harness/checks.h harness/run_files.h
  harness/run_config.h)
if(LOCKSTEP_BUILD_REAL_ETCD)
  list(APPEND lockstep_public_headers real_run/runner.h)
endif()
set(lockstep_public_headers_source "")
foreach(header ${lockstep_public_headers})
  string(APPEND lockstep_public_headers_source "#include <lockstep/${header}>\n")
endforeach()
file(WRITE ${PROJECT_BINARY_DIR}/public_headers.cc "${lockstep_public_headers_source}")
execute_process(
  COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -I${PROJECT_BINARY_DIR}/include -MM -MG
          ${PROJECT_BINARY_DIR}/public_headers.cc
  OUTPUT_VARIABLE lockstep_header_deps RESULT_VARIABLE lockstep_header_deps_status
  ERROR_VARIABLE lockstep_header_deps_error)
if(NOT lockstep_header_deps_status EQUAL 0)
  message(FATAL_ERROR "listing the installed headers failed: ${lockstep_header_deps_error}")
endif()
string(REGEX MATCHALL "${PROJECT_BINARY_DIR}/include/lockstep/[A-Za-z0-9_/.]+\\.h"
       lockstep_installed_headers "${lockstep_header_deps}")
list(REMOVE_DUPLICATES lockstep_installed_headers)
foreach(header ${lockstep_installed_headers})
  string(REPLACE "${PROJECT_BINARY_DIR}/include/lockstep/" "" relative ${header})
  get_filename_component(folder ${relative} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${relative}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep/${folder})
endforeach()

set(lockstep_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${lockstep_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lockstepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockstepConfig.cmake INSTALL_DESTINATION ${lockstep_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockstepConfig.cmake
              ${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
        DESTINATION ${lockstep_cmake_dir})

# The example project, built against a fresh install of this build (tests the package).
if(LOCKSTEP_BUILD_TESTS)
  add_test(NAME "example project builds and passes against the installed library"
    COMMAND ${CMAKE_COMMAND}
      -DLOCKSTEP_BUILD_DIR=${PROJECT_BINARY_DIR}
      -DLOCKSTEP_EXAMPLE_DIR=${PROJECT_SOURCE_DIR}/examples/lock-property
      -DLOCKSTEP_WORK_DIR=${PROJECT_BINARY_DIR}/example-test
      -DLOCKSTEP_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DLOCKSTEP_GENERATOR=${CMAKE_GENERATOR}
      -DLOCKSTEP_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DLOCKSTEP_CTEST=${CMAKE_CTEST_COMMAND}
      -P ${PROJECT_SOURCE_DIR}/cmake/test_example.cmake)
  set_tests_properties("example project builds and passes against the installed library"
    PROPERTIES LABELS example_install TIMEOUT 900)
endif()
