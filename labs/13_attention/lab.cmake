# Lab 13's extra targets (labs/13_attention/lab.json names this file; cudalabs_add_declared_lab
# includes it with LAB_NUMBER and LAB_DIR set; its declaration's sm90a builds the Hopper rung).
#
# What the drivers time the lab's kernels against lives in a library of its own: cuBLAS's attention,
# and PyTorch's fused backends run by tools/pytorch_attention.py in a child process (the script found
# in the source tree this build was configured from).
add_library(lab13_library_reference STATIC "${LAB_DIR}/library_reference.cu" "${LAB_DIR}/pytorch_sdpa.cpp")
set_source_files_properties("${LAB_DIR}/pytorch_sdpa.cpp" PROPERTIES
                            COMPILE_DEFINITIONS CUDALABS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(lab13_library_reference PUBLIC cudalabs_common PRIVATE cudalabs_warnings)
target_include_directories(lab13_library_reference PUBLIC "${LAB_DIR}")
# The drivers' attention problems (attention_runs.cpp) and --dump-dir (attention_dump.cpp) are theirs
# alone.
foreach(target IN ITEMS lab13 lab13_solution)
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE lab13_library_reference)
    target_sources(${target} PRIVATE "${LAB_DIR}/attention_dump.cpp" "${LAB_DIR}/attention_runs.cpp")
  endif()
endforeach()
# The solution's steps past the ladder (solutions/13_attention/attention_steps.h): a translation unit
# beside its kernels.cu, checked by lab13_steps_tests and timed by lab13_attention_steps (its rows
# checked, timed and checked again in their timed buffers: attention_steps_runs.cpp), an
# instructors' copy only (it runs the solution's kernels).
if(TARGET lab13_solution_kernels)
  target_sources(lab13_solution_kernels PRIVATE "${PROJECT_SOURCE_DIR}/solutions/13_attention/attention_steps.cu")
  add_executable(lab13_attention_steps "${PROJECT_SOURCE_DIR}/solutions/13_attention/attention_steps_main.cpp"
                                       "${PROJECT_SOURCE_DIR}/solutions/13_attention/attention_steps_runs.cpp"
                                       "${PROJECT_SOURCE_DIR}/solutions/13_attention/attention_steps_table.cpp")
  target_include_directories(lab13_attention_steps PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(lab13_attention_steps PRIVATE lab13_solution_kernels lab13_library_reference
                                                      cudalabs_driver cudalabs_warnings)
endif()
