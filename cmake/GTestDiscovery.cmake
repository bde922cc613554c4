# Test discovery for GoogleTest executables, run by ctest just before the tests (like
# gtest_discover_tests in PRE_TEST mode), with labels that survive as a list whatever the CMake
# version. (gtest_discover_tests flattens `PROPERTIES LABELS "a;b"` into separate arguments.)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# cudalabs_discover_gtests(<target> PREFIX <prefix> LABELS <label>... [TIMEOUT <seconds>])
#
# Every test of <target> becomes a ctest test named <prefix><Suite>.<test>, labelled with every
# label given. A test that calls GTEST_SKIP is reported by ctest as skipped, never as passed. A target
# labelled gpu runs its tests in one process where no GPU is present (GTestAddDiscovered.cmake).
function(cudalabs_discover_gtests target)
  cmake_parse_arguments(DISCOVER "" "PREFIX;TIMEOUT" "LABELS" ${ARGN})
  if(NOT DISCOVER_TIMEOUT)
    set(DISCOVER_TIMEOUT 600)
  endif()
  string(JOIN "," labels ${DISCOVER_LABELS})
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_discovered.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(CUDALABS_GTEST_EXECUTABLE [==[$<TARGET_FILE:${target}>]==])
set(CUDALABS_GTEST_PREFIX [==[${DISCOVER_PREFIX}]==])
set(CUDALABS_GTEST_LABELS [==[${labels}]==])
set(CUDALABS_GTEST_TIMEOUT ${DISCOVER_TIMEOUT})
set(CUDALABS_GTEST_RESULTS [==[${CMAKE_CURRENT_BINARY_DIR}/${target}_results]==])
set(CUDALABS_GTEST_BATCH [==[${PROJECT_SOURCE_DIR}/cmake/gtest_batch.py]==])
set(CUDALABS_GPU_PRESENT [==[${PROJECT_SOURCE_DIR}/scripts/gpu-present]==])
set(CUDALABS_PYTHON [==[${Python3_EXECUTABLE}]==])
set(CUDALABS_CMAKE [==[${CMAKE_COMMAND}]==])
include([==[${PROJECT_SOURCE_DIR}/cmake/GTestAddDiscovered.cmake]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
