# Installing lockstep as a library: `cmake --install BUILD --prefix P` puts the static
# libraries, the headers (P/include/lockstep/<folder>/*.h) and a CMake package in P, so that
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
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/lockstep>)
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
set(lockstep_header_folders kv kv_json model checker algorithms sim harness)
if(LOCKSTEP_BUILD_REAL_ETCD)
  list(APPEND lockstep_header_folders real_etcd real_run)
endif()
foreach(folder ${lockstep_header_folders})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep/${folder}
          FILES_MATCHING PATTERN "*.h"
          PATTERN "fuzz" EXCLUDE PATTERN "testdata" EXCLUDE)
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
