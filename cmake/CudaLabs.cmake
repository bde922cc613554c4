# Build helpers shared by every lab: warnings, the lab targets and the grading tests.
include(${CMAKE_CURRENT_LIST_DIR}/GTestDiscovery.cmake)

# Warnings on for host code and for the host side of .cu files; -lineinfo lets Nsight Compute map
# its counters to source lines without slowing the kernels down.
add_library(cudalabs_warnings INTERFACE)
target_compile_options(cudalabs_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -lineinfo>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CUDALABS_PTXAS_VERBOSE}>>:-Xptxas=-v>)

# The labs added so far, in order; tests/ and the run scripts iterate over it.
set_property(GLOBAL PROPERTY CUDALABS_LABS "")

# cudalabs_add_lab(<NN> <name> [SOURCES file...] [USES <MM>...])
#
# Builds labs/<NN>_<name>/main.cu twice: `labNN` with the student's kernels.cu (from
# CUDALABS_STUDENT_LABS_DIR) and `labNN_solution` with solutions/<NN>_<name>/kernels.cu. Both link the
# same driver, so the student and the solution are verified and timed the same way. SOURCES (in the
# lab folder) join both kernel libraries: host code the lab's driver and tests share. USES <MM> links
# lab MM's kernels of the same build (lab 09's student build runs the student's lab 07 GEMM).
function(cudalabs_add_lab number name)
  cmake_parse_arguments(PARSE_ARGV 2 LAB "" "" "SOURCES;USES")
  set(folder "${number}_${name}")
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${folder}")
  set(student_source "${CUDALABS_STUDENT_LABS_DIR}/${folder}/kernels.cu")
  set(solution_source "${PROJECT_SOURCE_DIR}/solutions/${folder}/kernels.cu")
  if(NOT EXISTS "${student_source}")
    message(FATAL_ERROR "lab ${number}: the student's kernels are missing: ${student_source}")
  endif()

  foreach(build IN ITEMS student solution)
    set(kernels "lab${number}_${build}_kernels")
    set(shared_sources "")
    foreach(source IN LISTS LAB_SOURCES)
      list(APPEND shared_sources "${lab_dir}/${source}")
    endforeach()
    add_library(${kernels} STATIC "${${build}_source}" ${shared_sources})
    target_include_directories(${kernels} PUBLIC "${PROJECT_SOURCE_DIR}" "${lab_dir}")
    target_link_libraries(${kernels} PUBLIC cudalabs_common PRIVATE cudalabs_warnings OpenMP::OpenMP_CXX)
    foreach(used IN LISTS LAB_USES)
      target_link_libraries(${kernels} PUBLIC lab${used}_${build}_kernels)
    endforeach()
    target_compile_definitions(${kernels} PRIVATE CUDALABS_BUILD_$<UPPER_CASE:${build}>=1)
  endforeach()

  add_executable(lab${number} "${lab_dir}/main.cu")
  target_link_libraries(lab${number} PRIVATE lab${number}_student_kernels cudalabs_driver cudalabs_warnings)
  add_executable(lab${number}_solution "${lab_dir}/main.cu")
  target_link_libraries(lab${number}_solution PRIVATE lab${number}_solution_kernels cudalabs_driver
                                                      cudalabs_warnings)

  set_property(GLOBAL APPEND PROPERTY CUDALABS_LABS "${number}_${name}")
endfunction()

# cudalabs_add_grading_tests(<NN> <test source> [extra sources...])
#
# One GoogleTest executable per build (student, solution) from the lab's grading test file. Every
# discovered test is labelled gpu, labNN and the build; a test that calls GTEST_SKIP (no GPU, or a
# skeleton kernel that writes nothing) is reported by ctest as skipped, never as passed.
function(cudalabs_add_grading_tests number source)
  foreach(build IN ITEMS student solution)
    set(target "lab${number}_grading_${build}")
    add_executable(${target} "${source}" ${ARGN})
    target_link_libraries(${target} PRIVATE lab${number}_${build}_kernels cudalabs_test_support
                                            cudalabs_warnings)
    target_compile_definitions(${target} PRIVATE CUDALABS_BUILD_$<UPPER_CASE:${build}>=1
                                                 CUDALABS_BUILD_NAME="${build}")
    cudalabs_discover_gtests(${target} PREFIX "lab${number}.${build}." LABELS gpu lab${number} ${build} TIMEOUT 600)
  endforeach()
endfunction()
