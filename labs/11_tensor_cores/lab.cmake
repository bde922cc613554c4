# Lab 11's extra programs (labs/11_tensor_cores/lab.json names this file; cudalabs_add_declared_lab
# includes it with LAB_NUMBER, LAB_DIR, and the architectures its declaration asks for, sm90a:
# LAB_ARCHITECTURES and LAB_SM90A).
#
# lab11_precision_error: what TF32, BF16 and (--fp8) FP8 inputs cost the DCGAN's images, on the CPU (given code).
add_executable(lab11_precision_error "${LAB_DIR}/precision_error_main.cpp"
                                     "${LAB_DIR}/fp8_rounding.cpp")
target_link_libraries(lab11_precision_error PRIVATE cudalabs_common cudalabs_warnings)
target_compile_definitions(lab11_precision_error PRIVATE CUDALABS_TRAINED_WEIGHTS="${CUDALABS_TRAINED_WEIGHTS_FILE}")

# lab11_ceiling: the tensor cores' peak rate, measured by kernels that only multiply (given code),
# built as the lab's kernels are (sm_90a where 9.0 is built).
add_executable(lab11_ceiling "${LAB_DIR}/ceiling_main.cu")
target_link_libraries(lab11_ceiling PRIVATE cudalabs_driver cudalabs_warnings)
set_property(TARGET lab11_ceiling PROPERTY CUDA_ARCHITECTURES "${LAB_ARCHITECTURES}")
if(LAB_SM90A)
  target_compile_definitions(lab11_ceiling PRIVATE CUDALABS_LAB11_SM90A=1)
endif()
