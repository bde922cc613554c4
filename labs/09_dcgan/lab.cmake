# Lab 09's extra targets (labs/09_dcgan/lab.json names this file; cudalabs_add_declared_lab includes it
# with LAB_NUMBER and LAB_DIR set).
#
# The generator's trained weights, which its drivers load by default: CUDALABS_TRAINED_WEIGHTS_FILE, for
# lab 10's and lab 11's programs too. The drivers of labs 09 and 10 run lab 09's FP32 kernels alone
# (labs/09_dcgan/precision_backend.h, defined by lab09_fp32_backend); the finished programs that also
# run lab 11's layers are programs/'s (dcgan, dcgan_multi_gpu, dcgan_mpi).
set(CUDALABS_TRAINED_WEIGHTS_FILE "${LAB_DIR}/fashion_mnist.cldw")
add_library(lab09_fp32_backend STATIC "${LAB_DIR}/fp32_backend.cpp")
target_include_directories(lab09_fp32_backend PUBLIC "${PROJECT_SOURCE_DIR}")
target_link_libraries(lab09_fp32_backend PUBLIC cudalabs_common PRIVATE cudalabs_warnings)
foreach(target IN ITEMS lab09 lab09_solution)
  if(TARGET ${target})
    target_compile_definitions(${target} PRIVATE CUDALABS_TRAINED_WEIGHTS="${CUDALABS_TRAINED_WEIGHTS_FILE}")
    target_link_libraries(${target} PRIVATE lab09_fp32_backend)
    target_sources(${target} PRIVATE "${LAB_DIR}/driver_runs.cpp")  # the driver past its flags
  endif()
endforeach()
