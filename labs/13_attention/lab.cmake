# Lab 13's extra targets (labs/13_attention/lab.json names this file; cudalabs_add_declared_lab
# includes it with LAB_NUMBER and LAB_DIR set; its declaration's sm90a builds the Hopper rung).
#
# The cuBLAS attention the drivers time the lab's kernels against lives in a library of its own.
add_library(lab13_library_reference STATIC "${LAB_DIR}/library_reference.cu")
target_link_libraries(lab13_library_reference PUBLIC cudalabs_common PRIVATE cudalabs_warnings)
target_include_directories(lab13_library_reference PUBLIC "${LAB_DIR}")
foreach(target IN ITEMS lab13 lab13_solution)
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE lab13_library_reference)
  endif()
endforeach()
