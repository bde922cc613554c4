# Run by ctest (through TEST_INCLUDE_FILES): lists the tests of one GoogleTest executable and adds
# each as a ctest test. Inputs: CUDALABS_GTEST_EXECUTABLE, CUDALABS_GTEST_PREFIX,
# CUDALABS_GTEST_LABELS (comma-separated), CUDALABS_GTEST_TIMEOUT.
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
string(REPLACE "\n" ";" cudalabs_lines "${cudalabs_listing}")
set(cudalabs_suite "")
foreach(cudalabs_line IN LISTS cudalabs_lines)
  # Comments ("  # GetParam() = ...") follow the name after two spaces and a '#'.
  string(REGEX REPLACE "  #.*$" "" cudalabs_line "${cudalabs_line}")
  if(cudalabs_line MATCHES "^([^ ].*)\\.$")
    set(cudalabs_suite "${CMAKE_MATCH_1}")
  elseif(cudalabs_line MATCHES "^  ([^ ]+)$" AND cudalabs_suite)
    set(cudalabs_test "${cudalabs_suite}.${CMAKE_MATCH_1}")
    set(cudalabs_ctest_name "${CUDALABS_GTEST_PREFIX}${cudalabs_test}")
    add_test("${cudalabs_ctest_name}" "${CUDALABS_GTEST_EXECUTABLE}" "--gtest_filter=${cudalabs_test}")
    set_tests_properties("${cudalabs_ctest_name}" PROPERTIES
      LABELS "${cudalabs_labels}"
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
      TIMEOUT ${CUDALABS_GTEST_TIMEOUT})
  endif()
endforeach()
