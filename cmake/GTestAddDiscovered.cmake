# Run by ctest (through TEST_INCLUDE_FILES): lists the tests of one GoogleTest executable and adds
# each as a ctest test. Inputs: CUDALABS_GTEST_EXECUTABLE, CUDALABS_GTEST_PREFIX,
# CUDALABS_GTEST_LABELS (comma-separated), CUDALABS_GTEST_TIMEOUT, and for the one-process mode below
# CUDALABS_GTEST_RESULTS, CUDALABS_GTEST_BATCH, CUDALABS_GPU_PRESENT, CUDALABS_PYTHON, CUDALABS_CMAKE.
string(REPLACE "," ";" cudalabs_labels "${CUDALABS_GTEST_LABELS}")
get_filename_component(cudalabs_name "${CUDALABS_GTEST_EXECUTABLE}" NAME)
if(NOT EXISTS "${CUDALABS_GTEST_EXECUTABLE}")
  add_test("${cudalabs_name}_NOT_BUILT" "${cudalabs_name}_NOT_BUILT")
  return()
endif()
execute_process(COMMAND "${CUDALABS_GTEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE cudalabs_listing RESULT_VARIABLE cudalabs_status ERROR_VARIABLE cudalabs_error
                TIMEOUT 60)
if(NOT cudalabs_status EQUAL 0)
  add_test("${cudalabs_name}_LISTING_FAILED" "${CUDALABS_GTEST_EXECUTABLE}" --gtest_list_tests)
  return()
endif()

# Where no GPU is present, a GPU program's tests run in one process: one ctest test runs them all
# (CUDALABS_GTEST_BATCH writes each result to a file of its own) and each test's own entry prints its
# file, passing, failing or skipped on its own result. Starting the program once per test costs more
# than its skipped tests do (it loads cuBLAS); with a GPU, every test keeps a process of its own.
set(cudalabs_one_process OFF)
list(FIND cudalabs_labels gpu cudalabs_gpu_label)  # (ctest reads this file without IN_LIST's policy)
if(cudalabs_gpu_label GREATER -1 AND CUDALABS_GTEST_RESULTS)
  execute_process(COMMAND "${CUDALABS_GPU_PRESENT}" RESULT_VARIABLE cudalabs_gpu TIMEOUT 30)
  if(NOT cudalabs_gpu EQUAL 0)
    set(cudalabs_one_process ON)
    set(cudalabs_all "${CUDALABS_GTEST_PREFIX}${cudalabs_name}.all_in_one_process")  # (two programs may share a prefix)
  endif()
endif()

string(REPLACE "\n" ";" cudalabs_lines "${cudalabs_listing}")
set(cudalabs_suite "")
set(cudalabs_count 0)
foreach(cudalabs_line IN LISTS cudalabs_lines)
  # Comments ("  # GetParam() = ...") follow the name after two spaces and a '#'.
  string(REGEX REPLACE "  #.*$" "" cudalabs_line "${cudalabs_line}")
  if(cudalabs_line MATCHES "^([^ ].*)\\.$")
    set(cudalabs_suite "${CMAKE_MATCH_1}")
  elseif(cudalabs_line MATCHES "^  ([^ ]+)$" AND cudalabs_suite)
    set(cudalabs_test "${cudalabs_suite}.${CMAKE_MATCH_1}")
    set(cudalabs_ctest_name "${CUDALABS_GTEST_PREFIX}${cudalabs_test}")
    math(EXPR cudalabs_count "${cudalabs_count} + 1")
    if(cudalabs_one_process)
      # The result's file name: the test's, '%' and '/' escaped as gtest_batch.py escapes them.
      string(REPLACE "%" "%25" cudalabs_file "${cudalabs_test}")
      string(REPLACE "/" "%2F" cudalabs_file "${cudalabs_file}")
      add_test("${cudalabs_ctest_name}" "${CUDALABS_CMAKE}" -E cat "${CUDALABS_GTEST_RESULTS}/${cudalabs_file}.txt")
      set_tests_properties("${cudalabs_ctest_name}" PROPERTIES
        LABELS "${cudalabs_labels}"
        FIXTURES_REQUIRED "${cudalabs_all}"
        PASS_REGULAR_EXPRESSION "\\[       OK \\]"
        FAIL_REGULAR_EXPRESSION "\\[  FAILED  \\]"
        SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
        TIMEOUT 60)
    else()
      add_test("${cudalabs_ctest_name}" "${CUDALABS_GTEST_EXECUTABLE}" "--gtest_filter=${cudalabs_test}")
      set_tests_properties("${cudalabs_ctest_name}" PROPERTIES
        LABELS "${cudalabs_labels}"
        SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
        TIMEOUT ${CUDALABS_GTEST_TIMEOUT})
    endif()
  endif()
endforeach()

# The one process's time: what its tests had alone, together, at most an hour (without a GPU they take
# seconds; the hour stops one that hangs). ctest stops it a minute after the program's own limit, so that
# the results of the tests that ran are still written.
if(cudalabs_one_process)
  math(EXPR cudalabs_seconds "${CUDALABS_GTEST_TIMEOUT} * (${cudalabs_count} + 1)")
  if(cudalabs_seconds GREATER 3600)
    set(cudalabs_seconds 3600)
  endif()
  add_test("${cudalabs_all}" "${CUDALABS_PYTHON}" "${CUDALABS_GTEST_BATCH}" "${CUDALABS_GTEST_EXECUTABLE}"
           "${CUDALABS_GTEST_RESULTS}" ${cudalabs_seconds})
  math(EXPR cudalabs_seconds "${cudalabs_seconds} + 60")
  set_tests_properties("${cudalabs_all}" PROPERTIES LABELS "${cudalabs_labels}" FIXTURES_SETUP "${cudalabs_all}"
                       TIMEOUT ${cudalabs_seconds})
endif()
