# Lab 07's extra programs (labs/07_wide_loads/lab.json names this file; cudalabs_add_declared_lab
# includes it with LAB_NUMBER and LAB_DIR set).
#
# lab07_plans (the student's kernels) and lab07_plans_solution: every plan `best` could run for a
# shape, timed against best_plan's model and cuBLAS, and checked again in the operands it was timed
# in (plan_runs.cpp; the verdicts, plan_check.cpp, are tested on the CPU by lab07_best_plan_tests).
foreach(build IN LISTS CUDALABS_BUILDS)
  set(plans_target lab07_plans)
  if(build STREQUAL "solution")
    set(plans_target lab07_plans_solution)
  endif()
  add_executable(${plans_target} "${LAB_DIR}/plans_main.cpp" "${LAB_DIR}/plan_runs.cpp"
                                 "${LAB_DIR}/plan_check.cpp")
  target_link_libraries(${plans_target} PRIVATE lab07_${build}_kernels cudalabs_driver cudalabs_warnings)
endforeach()
