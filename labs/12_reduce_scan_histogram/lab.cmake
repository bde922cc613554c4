# Lab 12's extra targets (labs/12_reduce_scan_histogram/lab.json names this file;
# cudalabs_add_declared_lab includes it with LAB_NUMBER and LAB_DIR set).
#
# The drivers time the lab's kernels against CUB and Thrust, whose kernels live in a library of their
# own that only the drivers link (never a student's object).
add_library(lab12_library_reference STATIC "${LAB_DIR}/library_reference.cu")
target_link_libraries(lab12_library_reference PUBLIC cudalabs_common PRIVATE cudalabs_warnings)
foreach(target IN ITEMS lab12 lab12_solution)
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE lab12_library_reference)
  endif()
endforeach()
# lab12_scan_sweep: configurations of the solution's look-back scan (template arguments of its
# kernel) timed against CUB's DeviceScan in one process, to choose scan_lookback's, each checked
# before timing and again after it in its timed buffers; instructors' copies only (it instantiates
# the solution).
if(CUDALABS_HAVE_SOLUTIONS)
  set(sweep "${PROJECT_SOURCE_DIR}/solutions/12_reduce_scan_histogram")
  add_executable(lab12_scan_sweep "${sweep}/scan_sweep_main.cu" "${sweep}/scan_sweep_candidates.cu"
                                  "${sweep}/scan_sweep_arrays.cu" "${sweep}/scan_sweep_timing.cu"
                                  "${LAB_DIR}/reference.cpp")
  target_include_directories(lab12_scan_sweep PRIVATE "${PROJECT_SOURCE_DIR}" "${LAB_DIR}")
  # Its record's context is every driver's (run_context); it times its rounds itself.
  target_link_libraries(lab12_scan_sweep PRIVATE lab12_solution_kernels lab12_library_reference
                                                 cudalabs_driver cudalabs_warnings OpenMP::OpenMP_CXX)
endif()
