# Command-line tests of the lab drivers: one line naming the flag and the value, exit code 2, no GPU
# needed (flags are checked before the device is touched).

# cudalabs_add_cli_test(<name> <exit code> <stderr regex> <program> [args...])
# A program a student release does not build (labNN_solution, dcgan) leaves its tests out.
function(cudalabs_add_cli_test name exit_code stderr_regex program)
  if(NOT TARGET ${program})
    return()
  endif()
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME "cli.${name}"
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:${program}>|${args}" -DEXPECT_EXIT=${exit_code}
                   "-DEXPECT_STDERR=${stderr_regex}" -DSTDERR_LINES=1 -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  set_tests_properties("cli.${name}" PROPERTIES LABELS "cpu;cli")
endfunction()

cudalabs_add_cli_test(lab01_m_zero 2 "^lab01: --m: invalid value '0' \\(expected an integer from 1 to" lab01 --m 0)
cudalabs_add_cli_test(lab01_k_negative 2 "^lab01: --k: invalid value '-3'" lab01 --k -3)
cudalabs_add_cli_test(lab01_n_not_a_number 2 "^lab01: --n: invalid value 'abc'" lab01 --n abc)
cudalabs_add_cli_test(lab01_size_not_a_number 2 "^lab01: --size: invalid value '12x'" lab01 --size 12x)
cudalabs_add_cli_test(lab01_alpha_nan 2 "^lab01: --alpha: invalid value 'nan'" lab01 --alpha nan)
cudalabs_add_cli_test(lab01_unknown_variant 2 "^lab01: --variant: unknown variant 'fastest'" lab01 --variant fastest)
cudalabs_add_cli_test(lab01_too_large 2 "^lab01: --m/--n/--k: matrix A" lab01 --m 1048576 --k 4096)
cudalabs_add_cli_test(lab01_solution_m_zero 2 "^lab01_solution: --m: invalid value '0'" lab01_solution --m 0)
cudalabs_add_cli_test(lab02_repetitions_zero 2 "^lab02: --repetitions: invalid value '0'" lab02 --repetitions 0)
cudalabs_add_cli_test(lab11_size_zero 2 "^lab11: --size: invalid value '0'" lab11 --size 0)
cudalabs_add_cli_test(lab11_unknown_variant 2 "^lab11: --variant: unknown variant 'hgmma'" lab11 --variant hgmma)
cudalabs_add_cli_test(lab11_bad_layout 2 "^lab11: --shapes: invalid layout 'ld\\+x'" lab11 --shapes 64_ld+x)
cudalabs_add_cli_test(lab11_precision_error_bad_precision 2
                      "^lab11_precision_error: --precision: invalid value 'fp16' \\(expected fp32, tf32 or bf16\\)"
                      lab11_precision_error --precision tf32,fp16)
cudalabs_add_cli_test(lab11_precision_error_num_zero 2
                      "^lab11_precision_error: --num: invalid value '0'" lab11_precision_error --num 0)
cudalabs_add_cli_test(lab11_ceiling_iterations_zero 2
                      "^lab11_ceiling: --iterations: invalid value '0' \\(expected an integer from 1 to" lab11_ceiling
                      --iterations 0)
cudalabs_add_cli_test(lab00_copy_mib_zero 2 "^lab00: --copy-mib: invalid value '0'" lab00 --copy-mib 0)
cudalabs_add_cli_test(lab08_factor_not_a_power_of_two 2 "^lab08: --factor: invalid value '3' \\(expected 1, 2, 4, 8, 16 or 32\\)"
                      lab08 --factor 3)
cudalabs_add_cli_test(lab08_factor_too_large 2 "^lab08: --factor: invalid value '64'" lab08 --factor 64)
cudalabs_add_cli_test(lab08_unknown_case 2 "^lab08: --case: case3 not in" lab08 --case case3)
cudalabs_add_cli_test(lab08_batch_zero 2 "^lab08: --n: invalid value '0'" lab08 --n 0)
cudalabs_add_cli_test(lab08_filter_taller_than_image 2 "^lab08_solution: --n/--h/--w/--c/--f/--r/--s: r = 40 is taller than the image \\(h = 31\\)"
                      lab08_solution --r 40)
cudalabs_add_cli_test(lab08_filter_too_large_for_shared_memory 2 "^lab08: tiling: a 90 x 90 filter needs"
                      lab08 --h 200 --w 200 --r 90 --s 90)
cudalabs_add_cli_test(lab08_too_many_elements 2 "^lab08: .*the input has 5000000000000 elements"
                      lab08 --n 1000000 --h 1000 --w 1000)

cudalabs_add_cli_test(lab07_plans_shape_zero 2 "^lab07_plans: --shapes: invalid shape '0'" lab07_plans --shapes 0)
cudalabs_add_cli_test(lab07_plans_bad_layout 2 "^lab07_plans: --shapes: invalid layout 'ldb\\+x'" lab07_plans
                      --shapes 4096_ldb+x)
cudalabs_add_cli_test(lab07_plans_within_below_one 2 "^lab07_plans: --within: invalid value '0.5'" lab07_plans
                      --shapes 64 --within 0.5)
cudalabs_add_cli_test(lab07_plans_unknown_flag 2 "^lab07_plans: unknown flag '--bogus'" lab07_plans --shapes 64 --bogus)
cudalabs_add_cli_test(lab07_plans_unwritable_output 2 "^lab07_plans: --output: '/nonexistent/p.json' cannot be written"
                      lab07_plans --shapes 64 --output /nonexistent/p.json)

# programs/gemm_random_shapes (scripts/gemm-random-shapes' timing program): its flags, before the GPU.
cudalabs_add_cli_test(gemm_random_shapes_shape_zero 2 "^gemm_random_shapes: --shapes: invalid shape '0x4x5'"
                      gemm_random_shapes --shapes 0x4x5 --output /tmp/gemm_random_shapes_cli.json)
cudalabs_add_cli_test(gemm_random_shapes_bad_labs 2 "^gemm_random_shapes: --labs: invalid value '12'"
                      gemm_random_shapes --shapes 64 --labs 12 --output /tmp/gemm_random_shapes_cli.json)
cudalabs_add_cli_test(gemm_random_shapes_bad_seed 2 "^gemm_random_shapes: --seed: invalid value '-1'"
                      gemm_random_shapes --shapes 64 --seed -1 --output /tmp/gemm_random_shapes_cli.json)
cudalabs_add_cli_test(gemm_random_shapes_min_rounds_above_rounds 2
                      "^gemm_random_shapes: --min-rounds: invalid value '5' \\(more than --rounds 4\\)"
                      gemm_random_shapes --shapes 64 --rounds 4 --min-rounds 5 --output /tmp/gemm_random_shapes_cli.json)
cudalabs_add_cli_test(gemm_random_shapes_unwritable_output 2
                      "^gemm_random_shapes: --output: '/nonexistent/t.json' cannot be written"
                      gemm_random_shapes --shapes 64 --output /nonexistent/t.json)

cudalabs_add_cli_test(dcgan_num_zero 2 "^dcgan: --num: invalid value '0' \\(expected an integer from 1 to" dcgan --num 0)
cudalabs_add_cli_test(dcgan_batch_zero 2 "^dcgan: --batch: invalid value '0'" dcgan --batch 0)
cudalabs_add_cli_test(dcgan_batch_above_num 2 "^dcgan: --batch: 8 is larger than the 4 images to generate" dcgan --num 4 --batch 8)
cudalabs_add_cli_test(dcgan_unknown_variant 2 "^dcgan: --variant: unknown variant 'fastest' \\(expected one of naive"
                      dcgan --variant fastest)
cudalabs_add_cli_test(dcgan_precision_unknown 2
                      "^dcgan: --precision: invalid value 'fp16' \\(expected fp32, tf32 or bf16\\)" dcgan --precision fp16)
cudalabs_add_cli_test(lab09_precision_bf16 2 "^lab09: --precision bf16: lab09 runs lab 09's FP32 kernels"
                      lab09 --precision bf16)
cudalabs_add_cli_test(dcgan_num_and_input 2 "^dcgan: --num: give either --num or --input" dcgan --num 4 --input z.cldz)
cudalabs_add_cli_test(dcgan_missing_weights 2 "^dcgan: weights file '/nonexistent/w.cldw': cannot be read"
                      dcgan --weights /nonexistent/w.cldw)
cudalabs_add_cli_test(dcgan_weights_wrong_magic 2 "^dcgan: weights file '.*README.md': wrong magic"
                      dcgan --weights ${PROJECT_SOURCE_DIR}/README.md)
cudalabs_add_cli_test(dcgan_input_wrong_magic 2 "^dcgan: latent file '.*lab.h': wrong magic"
                      dcgan --input ${PROJECT_SOURCE_DIR}/labs/09_dcgan/lab.h)
cudalabs_add_cli_test(dcgan_too_many_images 2 "^dcgan: --num 1048576 needs 98304 MiB of host memory" dcgan --num 1048576)
cudalabs_add_cli_test(lab09_check_images_zero 2 "^lab09: --check-images: invalid value '0'" lab09 --check-images 0)
cudalabs_add_cli_test(dcgan_timeline_unwritable 2 "^dcgan: --timeline: '/nonexistent/t.json' cannot be written" dcgan
                      --timeline /nonexistent/t.json)

add_test(NAME cli.lab01_list
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:lab01>|--list" -DEXPECT_EXIT=0
                 "-DEXPECT_STDOUT=naive_strided.*naive_coalesced" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
add_test(NAME cli.lab02_help
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:lab02>|--help" -DEXPECT_EXIT=0
                 "-DEXPECT_STDOUT=--verify-only" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
set_tests_properties(cli.lab01_list cli.lab02_help PROPERTIES LABELS "cpu;cli")

# Every program a user runs answers its command line alike (common/cli.h), and each gets the same
# three tests: an unknown flag is refused in one line naming it (exit 2), --help exits 0 with the
# program's own name and value names (never CLI11's TEXT, INT, ...), and a numeric option given a
# word is refused in one line that starts with the program's own name (tests/cli/bad_value_check.py). The
# programs are found, not listed: every executable defined outside tests/ and grader/ (whose
# programs are internal), so a program added later gets these tests from its add_executable line. A
# program that links MPI runs under mpirun, with 2 ranks: one line from rank 0.
function(cudalabs_links_mpi target out)
  set(pending ${target})
  set(seen "")
  set(found OFF)
  while(pending)
    list(POP_FRONT pending item)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item MATCHES "^MPI::")  # an imported target, visible only where MPI was found
      set(found ON)
      break()
    endif()
    if(item IN_LIST seen OR NOT TARGET ${item})
      continue()
    endif()
    list(APPEND seen ${item})
    get_target_property(type ${item} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links ${item} LINK_LIBRARIES)
    endif()
    get_target_property(interface ${item} INTERFACE_LINK_LIBRARIES)
    foreach(list IN ITEMS links interface)
      if(${list})
        list(APPEND pending ${${list}})
      endif()
    endforeach()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(cudalabs_user_programs out)
  set(programs "")
  set(directories ${PROJECT_SOURCE_DIR})
  while(directories)
    list(POP_FRONT directories directory)
    if(directory MATCHES "^${PROJECT_SOURCE_DIR}/(tests|grader)(/|$)")
      continue()
    endif()
    get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type STREQUAL "EXECUTABLE")
        list(APPEND programs ${target})
      endif()
    endforeach()
    get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
    list(APPEND directories ${subdirectories})
  endwhile()
  set(${out} ${programs} PARENT_SCOPE)
endfunction()

cudalabs_user_programs(cudalabs_programs)
if(NOT cudalabs_programs)
  message(FATAL_ERROR "tests/cli: found no program to test")  # the search is broken, not the suite
endif()
foreach(program IN LISTS cudalabs_programs)
  set(launcher "")
  set(environment "")
  set(labels "cpu;cli")
  cudalabs_links_mpi(${program} mpi)
  if(mpi)
    set(launcher "${PROJECT_SOURCE_DIR}/tests/cli/mpirun_isolated.sh|${MPIEXEC_EXECUTABLE}|-q|--oversubscribe|-np|2")
    set(environment "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
    set(labels "cpu;cli;mpi")  # like every MPI test: the host sanitizers leave them out (Open MPI's allocations)
  endif()
  add_test(NAME "cli.${program}.unknown_flag"
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:${program}>|--nosuch-flag|1" "-DLAUNCHER=${launcher}" -DEXPECT_EXIT=2
                   "-DEXPECT_STDERR=^PROGRAM: unknown flag '--nosuch-flag' \\(see --help\\)" -DSTDERR_LINES=1
                   -DPROGRAM=$<TARGET_FILE_NAME:${program}> -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  add_test(NAME "cli.${program}.help"
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:${program}>|--help" "-DLAUNCHER=${launcher}" -DEXPECT_EXIT=0
                   "-DEXPECT_STDOUT=Usage: PROGRAM " "-DREJECT_STDOUT=(^|[^A-Za-z0-9_])(TEXT|INT|UINT|FLOAT|BOOLEAN|CHAR|ENUM)([^A-Za-z0-9_]|$)"
                   -DSTDERR_LINES=0 -DPROGRAM=$<TARGET_FILE_NAME:${program}> -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  string(REPLACE "|" ";" launcher_words "${launcher}")
  add_test(NAME "cli.${program}.bad_value"
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/bad_value_check.py $<TARGET_FILE_NAME:${program}>
                   ${launcher_words} $<TARGET_FILE:${program}>)
  set_tests_properties("cli.${program}.unknown_flag" "cli.${program}.help" "cli.${program}.bad_value" PROPERTIES
                       LABELS "${labels}" TIMEOUT 300 ENVIRONMENT "${environment}")
endforeach()

# Without a GPU every program says so in one line and exits 1 (skipped where a GPU is present).
foreach(program IN ITEMS lab00 lab01 lab02_solution lab08 lab09 dcgan lab11 lab11_ceiling)
  if(NOT TARGET ${program})
    continue()
  endif()
  add_test(NAME "cli.${program}_no_gpu"
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:${program}>" -DEXPECT_EXIT=1
                   "-DEXPECT_STDERR=^PROGRAM: no CUDA GPU available" -DSTDERR_LINES=1 -DREQUIRE_NO_GPU=ON
                   -DPROGRAM=$<TARGET_FILE_NAME:${program}> -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  set_tests_properties("cli.${program}_no_gpu" PROPERTIES LABELS "cpu;cli" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
endforeach()

# Sizes whose buffers exceed the device's memory are refused before anything is allocated (GPU only):
# 2 x 1 TiB of copy buffers fit no GPU.
add_test(NAME cli.lab00_exceeds_device_memory
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:lab00>|--copy-mib|1048576" -DEXPECT_EXIT=2
                 "-DEXPECT_STDERR=^lab00: --copy-mib 1048576 .*needs [0-9]+ MiB of device memory, but only" -DSTDERR_LINES=1
                 -DREQUIRE_GPU=ON -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
set_tests_properties(cli.lab00_exceeds_device_memory PROPERTIES LABELS "gpu;cli" SKIP_REGULAR_EXPRESSION "SKIPPED: ")

# The grader's front door: bad arguments are one line and exit 2; without a GPU, one line and non-zero.
function(cudalabs_add_script_test name exit_code stderr_regex)
  string(REPLACE ";" "|" command "${ARGN}")
  add_test(NAME "cli.${name}"
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=${exit_code} "-DEXPECT_STDERR=${stderr_regex}"
                   -DSTDERR_LINES=1 -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  set_tests_properties("cli.${name}" PROPERTIES LABELS "cpu;cli")
endfunction()
# scripts/gemm-random-shapes (the random-shape benchmark of labs 07 and 11): its draw options, before anything runs.
cudalabs_add_script_test(gemm_random_shapes_count_zero 2
                         "^gemm-random-shapes: --count: invalid value '0' \\(expected an integer from 1 to 2000\\)"
                         ${PROJECT_SOURCE_DIR}/scripts/gemm-random-shapes --dry-run --count 0)
cudalabs_add_script_test(gemm_random_shapes_negative_cap 2
                         "^gemm-random-shapes: --max-gib: invalid value '-1' \\(expected a number above 0"
                         ${PROJECT_SOURCE_DIR}/scripts/gemm-random-shapes --dry-run --max-gib -1)
set(grade_script ${PROJECT_SOURCE_DIR}/scripts/grade)
if(EXISTS "${grade_script}")  # not in a student release
  cudalabs_add_script_test(grade_missing_submission 2 "^grade: SUBMISSION: '/nonexistent/labs' is not a folder"
                           ${grade_script} --submission /nonexistent/labs)
  cudalabs_add_script_test(grade_unknown_lab 2 "^grade: LABS: '42' is not a lab" ${grade_script} --labs 42)
  cudalabs_add_script_test(grade_bad_seed 2 "^grade: --seed: 'abc' is not a non-negative integer"
                           ${grade_script} --seed abc)
  cudalabs_add_script_test(grade_bad_time_limit 2 "^grade: --time-limit: -5.0 is not in" ${grade_script} --time-limit -5)
  cudalabs_add_script_test(grade_unreadable_rubric 2 "^grade: rubric /nonexistent/rubric.json: cannot be read"
                           ${grade_script} --rubric /nonexistent/rubric.json)
  add_test(NAME cli.grade_script_no_gpu
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${grade_script}" -DEXPECT_EXIT=3 "-DEXPECT_STDERR=^grade: no CUDA GPU available"
                   -DSTDERR_LINES=1 -DREQUIRE_NO_GPU=ON -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  add_test(NAME cli.grade_make_no_gpu
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=make|--no-print-directory|-C|${PROJECT_SOURCE_DIR}|grade" -DEXPECT_EXIT=2
                   "-DEXPECT_STDERR=no CUDA GPU available: make grade needs one" -DSTDERR_LINES=1 -DREQUIRE_NO_GPU=ON
                   -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
  set_tests_properties(cli.grade_script_no_gpu cli.grade_make_no_gpu PROPERTIES LABELS "cpu;cli"
                       SKIP_REGULAR_EXPRESSION "SKIPPED: ")
endif()

# Lab 10: the threaded driver's flags, and the MPI program (when built) under mpirun: a bad flag is one
# line from rank 0 and exit 2; without a GPU, one line and exit 1; on the GPU machine, the checks of
# tests/cli/mpi_checks.sh (a rank without a GPU stops the run; 2 ranks give one GPU's images; 3 ranks on
# GPU 0 give the threaded program's at each precision).
cudalabs_add_cli_test(lab10_devices_not_a_number 2 "^lab10: --devices: invalid value 'a'" lab10 --devices 0,a)
cudalabs_add_cli_test(lab10_scaling_zero 2 "^lab10: --scaling: invalid value '0'" lab10 --scaling 10,0)
cudalabs_add_cli_test(lab10_gpus_and_devices 2 "^lab10: --gpus: give either --gpus or --devices" lab10 --gpus 1 --devices 0)
cudalabs_add_cli_test(lab10_timeline_unwritable 2 "^lab10: --timeline: '/nonexistent/t.json' cannot be written" lab10
                      --timeline /nonexistent/t.json)
cudalabs_add_cli_test(lab10_precision_bf16 2 "^lab10: --precision bf16: lab10 runs lab 09's FP32 kernels" lab10
                      --precision bf16)
cudalabs_add_cli_test(lab10_solution_precision_unknown 2
                      "^lab10_solution: --precision: invalid value 'fp8' \\(expected fp32, tf32 or bf16\\)"
                      lab10_solution --precision fp8)
cudalabs_add_cli_test(lab10_too_many_images 2 "^lab10: --num 1048576 with --scaling up to 1048576 needs" lab10 --num 1048576)
add_test(NAME cli.lab10_no_gpu
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:lab10>" -DEXPECT_EXIT=1
                 "-DEXPECT_STDERR=^lab10: no CUDA GPU available" -DSTDERR_LINES=1 -DREQUIRE_NO_GPU=ON
                 -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
set_tests_properties(cli.lab10_no_gpu PROPERTIES LABELS "cpu;cli" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
if(CUDALABS_MPI_FOUND AND TARGET dcgan_mpi)
  # mpirun -q: Open MPI adds no banner of its own, so rank 0's line is all of stderr.
  function(cudalabs_add_mpi_test name exit_code stderr_regex ranks)
    string(REPLACE ";" "|" args "${ARGN}")
    add_test(NAME "cli.${name}"
             COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${PROJECT_SOURCE_DIR}/tests/cli/mpirun_isolated.sh|${MPIEXEC_EXECUTABLE}|-q|--oversubscribe|-np|${ranks}|$<TARGET_FILE:dcgan_mpi>|${args}"
                     -DEXPECT_EXIT=${exit_code} "-DEXPECT_STDERR=${stderr_regex}" -DSTDERR_LINES=1 ${CUDALABS_MPI_TEST_GPU}
                     -P ${PROJECT_SOURCE_DIR}/cmake/ExpectOutput.cmake)
    set_tests_properties("cli.${name}" PROPERTIES LABELS "cpu;cli;mpi" SKIP_REGULAR_EXPRESSION "SKIPPED: " TIMEOUT 120
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endfunction()
  # Flags are answered before any phase: every rank reaches the same verdict, rank 0 says it once.
  cudalabs_add_mpi_test(dcgan_mpi_num_zero 2 "^dcgan_mpi: --num: invalid value '0' \\(expected an integer from 1 to" 2
                        --num 0)
  cudalabs_add_mpi_test(dcgan_mpi_bad_gather 2 "^dcgan_mpi: --gather: 'broadcast' \\(expected shared or collective\\)" 2
                        --gather broadcast)
  cudalabs_add_mpi_test(dcgan_mpi_bad_precision 2 "^dcgan_mpi: --precision: invalid value 'fp8' \\(expected fp32, tf32 or bf16\\)" 2
                        --precision fp8)
  cudalabs_add_mpi_test(dcgan_mpi_bad_devices 2 "^dcgan_mpi: --devices: invalid value 'x' \\(expected an integer from 0 to 1023\\)" 2
                        --devices 0,x)
  cudalabs_add_mpi_test(dcgan_mpi_uneven_nodes 2 "^dcgan_mpi: --simulate-nodes: 3 ranks do not split into 2 equal nodes" 3
                        --simulate-nodes 2)
  cudalabs_add_mpi_test(dcgan_mpi_missing_weights 2 "^dcgan_mpi: rank 0 \\(node 0, GPU 0\\): weights file '/nonexistent/w.cldw': cannot be read" 2
                        --weights /nonexistent/w.cldw)
  set(CUDALABS_MPI_TEST_GPU -DREQUIRE_NO_GPU=ON)
  cudalabs_add_mpi_test(dcgan_mpi_no_gpu 1 "^dcgan_mpi: rank 0 \\(node 0, GPU 0\\): no CUDA GPU available" 2 --num 4)
  add_test(NAME cli.lab10_mpi_gpu COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/mpi_checks.sh $<TARGET_FILE:dcgan_mpi>
                                          $<TARGET_FILE:lab10_solution> $<TARGET_FILE:dcgan_multi_gpu>)
  set_tests_properties(cli.lab10_mpi_gpu PROPERTIES LABELS "gpu;cli;mpi" SKIP_REGULAR_EXPRESSION "SKIPPED: " TIMEOUT 900)
endif()

# The timelines (--timeline): the trace of a GPU run has every step of every batch of every worker once
# (tests/cli/timeline_check.py; skipped without a GPU), and the checker itself reads the recorded traces.
add_test(NAME cli.timeline_check_reads_traces
         COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/timeline_check_test.py)
set_tests_properties(cli.timeline_check_reads_traces PROPERTIES LABELS "cpu;cli")
if(TARGET dcgan)
  add_test(NAME cli.dcgan_timeline_batches
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/timeline_check.py 1 10 4 $<TARGET_FILE:dcgan>
                   --weights builtin --variant subpixel --repetitions 1 --min-time 0.01 --end-to-end-repetitions 1
                   --check-images 1)
  set_tests_properties(cli.dcgan_timeline_batches PROPERTIES LABELS "gpu;cli" SKIP_REGULAR_EXPRESSION "SKIPPED: "
                       TIMEOUT 600)
endif()
if(TARGET lab10_solution)
  # Two workers on GPU 0: the mechanism of two GPUs on any GPU machine.
  add_test(NAME cli.lab10_timeline_batches
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/timeline_check.py 2 11 4
                   $<TARGET_FILE:lab10_solution> --weights builtin --devices 0,0 --verify-only --check-images 1)
  set_tests_properties(cli.lab10_timeline_batches PROPERTIES LABELS "gpu;cli" SKIP_REGULAR_EXPRESSION "SKIPPED: "
                       TIMEOUT 600)
endif()
if(TARGET dcgan_multi_gpu)
  # Lab 10's threaded program at fp32, tf32 and bf16: three workers on GPU 0, one GPU's images.
  add_test(NAME cli.dcgan_multi_gpu_precisions
           COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/workers_precisions.sh $<TARGET_FILE:dcgan_multi_gpu>)
  set_tests_properties(cli.dcgan_multi_gpu_precisions PROPERTIES LABELS "gpu;cli;lab10" SKIP_REGULAR_EXPRESSION "SKIPPED: "
                       TIMEOUT 900)
endif()
if(TARGET lab07_plans_solution)
  add_test(NAME cli.lab07_plans_every_plan_right
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/plans_check.py
                   $<TARGET_FILE:lab07_plans_solution>
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/cli)
  set_tests_properties(cli.lab07_plans_every_plan_right PROPERTIES LABELS "gpu;cli;lab07"
                       SKIP_REGULAR_EXPRESSION "SKIPPED: " TIMEOUT 600)
endif()

# The reliability page's bad-input table is generated from this file: every test above that expects
# one line on stderr must be in it, with its command, exit code and line.
add_test(NAME cli.reliability_table_lists_every_bad_input_test
         COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/cli/reliability_table_test.py ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.reliability_table_lists_every_bad_input_test PROPERTIES LABELS "cpu;cli;docs"
                     ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
