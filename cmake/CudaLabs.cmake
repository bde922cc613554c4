# Build helpers shared by every lab: warnings, the lab targets and the grading tests.
include(${CMAKE_CURRENT_LIST_DIR}/GTestDiscovery.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LabDeclarations.cmake)
# CUDALABS_LAB_NUMBERS and each lab's fields, from labs/NN_name/lab.json.
cudalabs_read_lab_declarations()

# Warnings on for host code and for the host side of .cu files; -lineinfo lets Nsight Compute map
# its counters to source lines without slowing the kernels down.
add_library(cudalabs_warnings INTERFACE)
target_compile_options(cudalabs_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -lineinfo>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CUDALABS_PTXAS_VERBOSE}>>:-Xptxas=-v>)

# The repository as a student's code sees it: common/ and labs/, no solutions/ (links in the build).
set(CUDALABS_SUITE_VIEW "${PROJECT_BINARY_DIR}/suite-view")
file(MAKE_DIRECTORY "${CUDALABS_SUITE_VIEW}")
foreach(folder IN ITEMS common labs)
  # Made anew at every configure, so that a checkout that moved gets links to where it is now.
  file(REMOVE "${CUDALABS_SUITE_VIEW}/${folder}")
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${folder}" "${CUDALABS_SUITE_VIEW}/${folder}" SYMBOLIC)
endforeach()

# The labs added so far, in order; tests/ and the run scripts iterate over it.
set_property(GLOBAL PROPERTY CUDALABS_LABS "")

# A student release (make release-students) has no solutions/: only the student's builds exist, and a
# later lab runs on the student's own earlier labs.
if(EXISTS "${PROJECT_SOURCE_DIR}/solutions")
  set(CUDALABS_HAVE_SOLUTIONS ON)
  set(CUDALABS_BUILDS student solution)
else()
  set(CUDALABS_HAVE_SOLUTIONS OFF)
  set(CUDALABS_BUILDS student)
  message(STATUS "No solutions/ (a student release): the labs build your kernels only, later labs run on "
                 "your earlier ones, and the solution-side tests are left out")
endif()

# Which kernels a student's later lab builds on: the reference solutions of the earlier labs, so that
# every lab can be done, run, tested and graded alone (lab 10's host code works before lab 09's
# kernels do), or the student's own, for the whole chain to be theirs (make ... EARLIER_LABS=student).
if(CUDALABS_HAVE_SOLUTIONS)
  set(default_earlier_labs reference)
else()
  set(default_earlier_labs student)
endif()
set(CUDALABS_EARLIER_LABS "${default_earlier_labs}" CACHE STRING
    "Kernels of the earlier labs that a student's later lab runs on: reference or student")
set_property(CACHE CUDALABS_EARLIER_LABS PROPERTY STRINGS reference student)
if(NOT CUDALABS_EARLIER_LABS MATCHES "^(reference|student)$")
  message(FATAL_ERROR "CUDALABS_EARLIER_LABS is '${CUDALABS_EARLIER_LABS}': use reference or student")
endif()
if(NOT CUDALABS_HAVE_SOLUTIONS AND CUDALABS_EARLIER_LABS STREQUAL "reference")
  message(FATAL_ERROR "CUDALABS_EARLIER_LABS is 'reference', but this copy has no solutions/ (a student "
                      "release): later labs run on your own earlier labs (EARLIER_LABS=student)")
endif()
# Lab -> the labs it builds on, directly or through another: BUILD/earlier_labs.json, for the grader.
set_property(GLOBAL PROPERTY CUDALABS_EARLIER_ENTRIES "")

# cudalabs_add_lab(<NN> <name> [SOURCES file...] [USES <MM>...])
#
# Builds labs/<NN>_<name>/main.cu twice: `labNN` with the student's kernels.cu (from
# CUDALABS_STUDENT_LABS_DIR) and `labNN_solution` with solutions/<NN>_<name>/kernels.cu. Both link the
# same driver, so the student and the solution are verified and timed the same way. SOURCES (in the
# lab folder) join both kernel libraries (compiled once where they can be): code the lab's driver and
# tests share. USES <MM> links lab MM's kernels: the solution's into the solution build, and into the
# student's build the reference solution's too unless CUDALABS_EARLIER_LABS is student (then the
# student's own).
#
# Every kernel library also answers, at run time, which build it is: the C function
# cudalabs_labNN_kernels_build() returns "student" or "solution" (drivers print what they run on).
function(cudalabs_add_lab number name)
  cmake_parse_arguments(PARSE_ARGV 2 LAB "" "" "SOURCES;USES")
  set(folder "${number}_${name}")
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${folder}")
  set(student_source "${CUDALABS_STUDENT_LABS_DIR}/${folder}/kernels.cu")
  set(solution_source "${PROJECT_SOURCE_DIR}/solutions/${folder}/kernels.cu")
  if(NOT EXISTS "${student_source}")
    message(FATAL_ERROR "lab ${number}: the student's kernels are missing: ${student_source}")
  endif()

  # The given sources: those that never ask which build they are in are compiled once, into
  # lab<NN>_given, whose objects both kernel libraries take (lab 11's DCGAN layers take minutes to
  # compile); the others (CUDALABS_BUILD_*, CUDALABS_EARLIER_LABS_OWN) once per build. Only a source
  # itself may ask: tests/repo/test_repository.py checks that no header does.
  set(shared_sources "")
  set(given_once "")
  foreach(source IN LISTS LAB_SOURCES)
    file(STRINGS "${lab_dir}/${source}" asks REGEX "CUDALABS_BUILD_|CUDALABS_EARLIER_LABS_OWN" LIMIT_COUNT 1)
    if(asks)
      list(APPEND shared_sources "${lab_dir}/${source}")
    else()
      list(APPEND given_once "${lab_dir}/${source}")
    endif()
  endforeach()
  if(given_once)
    set(given "lab${number}_given")
    add_library(${given} OBJECT ${given_once})
    target_include_directories(${given} PRIVATE "${lab_dir}")
    target_link_libraries(${given} PRIVATE cudalabs_common cudalabs_warnings OpenMP::OpenMP_CXX)
    # The earlier labs' headers (those it uses, and theirs), not their kernels: each build links its own.
    foreach(used IN LISTS LAB_USES)
      get_property(through GLOBAL PROPERTY CUDALABS_EARLIER_${used})
      foreach(earlier_lab IN ITEMS ${used} ${through})
        target_include_directories(${given} PRIVATE
                                   $<TARGET_PROPERTY:lab${earlier_lab}_student_kernels,INTERFACE_INCLUDE_DIRECTORIES>)
      endforeach()
    endforeach()
  endif()

  foreach(build IN LISTS CUDALABS_BUILDS)
    set(kernels "lab${number}_${build}_kernels")
    set(provenance "${PROJECT_BINARY_DIR}/provenance/lab${number}_${build}.cpp")
    file(CONFIGURE OUTPUT "${provenance}" CONTENT
         "// Generated by cudalabs_add_lab: which build of lab ${number}'s kernels this library is.\n\
extern \"C\" const char* cudalabs_lab${number}_kernels_build() { return \"${build}\"; }\n")
    add_library(${kernels} STATIC "${${build}_source}" ${shared_sources} "${provenance}")
    target_include_directories(${kernels} PUBLIC "${lab_dir}")
    if(build STREQUAL "solution")
      # A solution may build on an earlier solution's helpers (lab 09 on lab 07's warp_tile.cuh).
      target_include_directories(${kernels} PRIVATE "${PROJECT_SOURCE_DIR}")
    endif()
    target_link_libraries(${kernels} PUBLIC cudalabs_common PRIVATE cudalabs_warnings OpenMP::OpenMP_CXX)
    if(given_once)
      target_sources(${kernels} PRIVATE $<TARGET_OBJECTS:${given}>)
    endif()
    foreach(used IN LISTS LAB_USES)
      set(used_build ${build})
      if(build STREQUAL "student" AND CUDALABS_EARLIER_LABS STREQUAL "reference")
        set(used_build solution)
      endif()
      target_link_libraries(${kernels} PUBLIC lab${used}_${used_build}_kernels)
    endforeach()
    target_compile_definitions(${kernels} PRIVATE CUDALABS_BUILD_$<UPPER_CASE:${build}>=1)
    # On the student's own earlier labs, a later lab runs their cores, never their optional
    # challenges (lab 09 lowers onto lab 07's last core step, lab 10 runs lab 09's fused variant).
    if(build STREQUAL "student" AND CUDALABS_EARLIER_LABS STREQUAL "student")
      target_compile_definitions(${kernels} PRIVATE CUDALABS_EARLIER_LABS_OWN=1)
    endif()
  endforeach()

  add_executable(lab${number} "${lab_dir}/main.cu")
  target_link_libraries(lab${number} PRIVATE lab${number}_student_kernels cudalabs_driver cudalabs_warnings)
  if(CUDALABS_HAVE_SOLUTIONS)
    add_executable(lab${number}_solution "${lab_dir}/main.cu")
    target_link_libraries(lab${number}_solution PRIVATE lab${number}_solution_kernels cudalabs_driver
                                                        cudalabs_warnings)
  endif()

  set_property(GLOBAL APPEND PROPERTY CUDALABS_LABS "${number}_${name}")
  # The labs this one builds on, through the ones it uses (lab 10 -> 09 -> 07).
  set(earlier "")
  foreach(used IN LISTS LAB_USES)
    get_property(through GLOBAL PROPERTY CUDALABS_EARLIER_${used})
    list(APPEND earlier ${used} ${through})
  endforeach()
  list(REMOVE_DUPLICATES earlier)
  set_property(GLOBAL PROPERTY CUDALABS_EARLIER_${number} "${earlier}")
  if(earlier)
    list(JOIN earlier "\", \"" quoted)
    set_property(GLOBAL APPEND PROPERTY CUDALABS_EARLIER_ENTRIES "\"${number}\": [\"${quoted}\"]")
  endif()
  get_property(entries GLOBAL PROPERTY CUDALABS_EARLIER_ENTRIES)
  list(JOIN entries ",\n    " entries)
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/earlier_labs.json" CONTENT
       "{\n  \"earlier_labs\": \"${CUDALABS_EARLIER_LABS}\",\n  \"builds_on\": {\n    ${entries}\n  }\n}\n")
endfunction()

# cudalabs_sm90a_architectures(<out list> <out flag>)
#
# The architectures of a lab declared `"architectures": "sm90a"` (labs 11 and 13, whose Hopper rungs
# use wgmma and setmaxnreg): where 90 is one of CMAKE_CUDA_ARCHITECTURES, sm_90a machine code instead
# (the flag says so, and the launchers know it through CUDALABS_LABNN_SM90A). PTX asked for with 90
# stays compute_90 (sm_90a code runs on Hopper only; the PTX is what newer GPUs JIT-compile, for every
# rung but Hopper's).
function(cudalabs_sm90a_architectures out_list out_flag)
  set(architectures "")
  set(sm90a OFF)
  foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(architecture MATCHES "^90a?(-real)?$")
      list(APPEND architectures 90a-real)
      set(sm90a ON)
    endif()
    if(architecture MATCHES "^90a?$" OR architecture MATCHES "^90a?-virtual$")
      list(APPEND architectures 90-virtual)
    elseif(NOT architecture MATCHES "^90")
      list(APPEND architectures "${architecture}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES architectures)
  set(${out_list} "${architectures}" PARENT_SCOPE)
  set(${out_flag} ${sm90a} PARENT_SCOPE)
endfunction()

# cudalabs_add_declared_lab(<NN>)
#
# The lab as labs/NN_name/lab.json declares it: cudalabs_add_lab with its sources and the labs it
# uses, its kernels built for its architectures, then its own extra targets (its `build` file,
# included here so that it sees LAB_NUMBER, LAB_DIR, LAB_ARCHITECTURES and LAB_SM90A).
macro(cudalabs_add_declared_lab number_argument)
  set(LAB_NUMBER ${number_argument})  # a variable (a macro's argument is not one) for the build file
  cudalabs_lab_field(LAB_FOLDER ${LAB_NUMBER} FOLDER)
  string(SUBSTRING "${LAB_FOLDER}" 3 -1 lab_name)
  cudalabs_lab_field(lab_sources ${LAB_NUMBER} sources)
  cudalabs_lab_field(lab_uses ${LAB_NUMBER} uses)
  cudalabs_add_lab(${LAB_NUMBER} ${lab_name} SOURCES ${lab_sources} USES ${lab_uses})
  set(LAB_DIR "${PROJECT_SOURCE_DIR}/labs/${LAB_FOLDER}")
  set(LAB_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  set(LAB_SM90A OFF)
  cudalabs_lab_field(lab_architectures ${LAB_NUMBER} architectures)
  if(lab_architectures STREQUAL "sm90a")
    cudalabs_sm90a_architectures(LAB_ARCHITECTURES LAB_SM90A)
    set(lab_kernel_targets "")
    foreach(build IN LISTS CUDALABS_BUILDS)
      list(APPEND lab_kernel_targets lab${LAB_NUMBER}_${build}_kernels)
    endforeach()
    if(TARGET lab${LAB_NUMBER}_given)
      list(APPEND lab_kernel_targets lab${LAB_NUMBER}_given)
    endif()
    foreach(target IN LISTS lab_kernel_targets)
      set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES "${LAB_ARCHITECTURES}")
      if(LAB_SM90A)
        target_compile_definitions(${target} PRIVATE CUDALABS_LAB${LAB_NUMBER}_SM90A=1)
      endif()
    endforeach()
  endif()
  cudalabs_lab_field(lab_build ${LAB_NUMBER} build)
  if(lab_build)
    include("${LAB_DIR}/${lab_build}")
  endif()
endmacro()

# cudalabs_add_grading_tests(<NN> <test source> [extra sources...])
#
# One GoogleTest executable per build (student, solution) from the lab's grading test file. Every
# discovered test is labelled gpu, labNN and the build; a test that calls GTEST_SKIP (no GPU, or a
# skeleton kernel that writes nothing) is reported by ctest as skipped, never as passed.
function(cudalabs_add_grading_tests number source)
  foreach(build IN LISTS CUDALABS_BUILDS)
    set(target "lab${number}_grading_${build}")
    add_executable(${target} "${source}" ${ARGN})
    target_link_libraries(${target} PRIVATE lab${number}_${build}_kernels cudalabs_test_support
                                            cudalabs_warnings)
    target_compile_definitions(${target} PRIVATE CUDALABS_BUILD_$<UPPER_CASE:${build}>=1
                                                 CUDALABS_BUILD_NAME="${build}")
    cudalabs_discover_gtests(${target} PREFIX "lab${number}.${build}." LABELS gpu lab${number} ${build} TIMEOUT 600)
  endforeach()
endfunction()
