# Lab 10's extra targets (labs/10_multi_gpu_dcgan/lab.json names this file; cudalabs_add_declared_lab
# includes it with LAB_NUMBER and LAB_DIR set). Lab 10 is lab 09's generator on every GPU of the node
# (threads) and across nodes (MPI). Its student build runs the student's lab 09 kernels; its own
# TODOs are host code.
foreach(target IN ITEMS lab10 lab10_solution)
  if(TARGET ${target})
    target_compile_definitions(${target} PRIVATE CUDALABS_TRAINED_WEIGHTS="${CUDALABS_TRAINED_WEIGHTS_FILE}")
    target_link_libraries(${target} PRIVATE lab09_fp32_backend OpenMP::OpenMP_CXX)
  endif()
endforeach()
# Its run_flags, scaling and thread_table (the table timed on the kit's host clock, its rechecks and
# record) are the driver kit's users.
foreach(build IN LISTS CUDALABS_BUILDS)
  if(TARGET lab10_${build}_kernels)
    target_link_libraries(lab10_${build}_kernels PUBLIC cudalabs_driver)
  endif()
endforeach()

# Lab 10's MPI program, when an MPI library is found: `lab10_mpi` (the student's gpu_share; the
# solution's with lab 11's layers is programs/'s `dcgan_mpi`).
find_package(MPI COMPONENTS CXX)
if(MPI_CXX_FOUND)
  # The MPI parts a student writes (the scatter, rank 0's shared output window, the ranks'
  # checkpoint), one library per build: the student's from labs/, the solution's from solutions/.
  foreach(build IN LISTS CUDALABS_BUILDS)
    set(parts_dir "${CUDALABS_STUDENT_LABS_DIR}/10_multi_gpu_dcgan")  # the grader stages them there
    if(build STREQUAL "solution")
      set(parts_dir "${PROJECT_SOURCE_DIR}/solutions/10_multi_gpu_dcgan")
    endif()
    add_library(lab10_mpi_${build}_parts STATIC "${parts_dir}/scatter.cpp" "${parts_dir}/node_output.cpp"
                                                 "${parts_dir}/checkpoint.cpp")
    target_link_libraries(lab10_mpi_${build}_parts PUBLIC cudalabs_driver MPI::MPI_CXX PRIVATE cudalabs_warnings)
    # The program around them, the same for both builds (this folder's): its flags, where each rank
    # runs, a rank's setup, one distributed run, and the scaling table with its rechecks.
    # (mpi_flags.cpp and mpi_rank.cpp use the program's own precision backend, linked by the
    # program.)
    add_library(lab10_mpi_${build} STATIC "${LAB_DIR}/mpi_flags.cpp" "${LAB_DIR}/rank_table.cpp"
                                          "${LAB_DIR}/mpi_rank.cpp" "${LAB_DIR}/distributed_run.cpp"
                                          "${LAB_DIR}/mpi_table.cpp")
    target_link_libraries(lab10_mpi_${build} PUBLIC lab10_mpi_${build}_parts lab10_${build}_kernels
                                             PRIVATE OpenMP::OpenMP_CXX cudalabs_warnings)
  endforeach()
  add_executable(lab10_mpi "${LAB_DIR}/mpi_main.cpp")
  target_link_libraries(lab10_mpi PRIVATE lab10_mpi_student lab09_fp32_backend cudalabs_warnings
                                          OpenMP::OpenMP_CXX)
  target_compile_definitions(lab10_mpi PRIVATE CUDALABS_TRAINED_WEIGHTS="${CUDALABS_TRAINED_WEIGHTS_FILE}")
  set(CUDALABS_MPI_FOUND ON CACHE INTERNAL "lab 10's MPI program is built")
else()
  message(STATUS "MPI not found: lab 10's MPI program (dcgan_mpi) is not built; install an MPI library "
                 "(Debian: libopenmpi-dev) to build it")
  set(CUDALABS_MPI_FOUND OFF CACHE INTERNAL "lab 10's MPI program is built")
endif()
