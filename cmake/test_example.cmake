# Installs the lockstep build LOCKSTEP_BUILD_DIR into a fresh prefix under LOCKSTEP_WORK_DIR,
# configures and builds the example project against it, and runs its tests. Run with
# cmake -P (see cmake/install.cmake). Any failing step fails the test with its output.
file(REMOVE_RECURSE ${LOCKSTEP_WORK_DIR})
set(prefix ${LOCKSTEP_WORK_DIR}/prefix)
set(build ${LOCKSTEP_WORK_DIR}/build)

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

step(${CMAKE_COMMAND} --install ${LOCKSTEP_BUILD_DIR} --prefix ${prefix})

# Every installed header compiles on its own with only the prefix on the include path (none
# reaches a header left out of the install), and the headers are there only under lockstep/.
file(GLOB_RECURSE installed_headers RELATIVE ${prefix}/include ${prefix}/include/*.h)
if(NOT installed_headers)
  message(FATAL_ERROR "no header installed under ${prefix}/include")
endif()
set(all_headers "")
foreach(header ${installed_headers})
  if(NOT header MATCHES "^lockstep/")
    message(FATAL_ERROR "installed outside include/lockstep/: ${header}")
  endif()
  string(APPEND all_headers "#include <${header}>\n")
endforeach()
file(WRITE ${LOCKSTEP_WORK_DIR}/all_headers.cc "${all_headers}")
step(${LOCKSTEP_CXX_COMPILER} -std=c++20 -fsyntax-only -I${prefix}/include
     ${LOCKSTEP_WORK_DIR}/all_headers.cc)
# The example is built with the same build type (its flags: Sanitize's come with the
# installed target) and the same compiler.
set(type ${LOCKSTEP_BUILD_TYPE})
if(type STREQUAL "Sanitize")
  set(type Debug)
endif()
step(${CMAKE_COMMAND} -S ${LOCKSTEP_EXAMPLE_DIR} -B ${build} -G ${LOCKSTEP_GENERATOR}
     -DCMAKE_BUILD_TYPE=${type} -DCMAKE_CXX_COMPILER=${LOCKSTEP_CXX_COMPILER}
     -DCMAKE_PREFIX_PATH=${prefix})
step(${CMAKE_COMMAND} --build ${build})
step(${CMAKE_COMMAND} -E chdir ${build} ${LOCKSTEP_CTEST} --output-on-failure)
message(STATUS "example project: built and passed against ${prefix}")
