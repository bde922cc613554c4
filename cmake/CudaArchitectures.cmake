# Default CUDA architectures: those of the GPUs present, else a fixed list.
#
# The fixed list holds one pre-Hopper architecture (sm_75, the oldest that CUDA 13 still builds; its
# PTX is JIT-compiled on Ampere and Ada) and Hopper (sm_90). The kernels use nothing newer than
# compute capability 7.0, so a CUDA 12 toolkit can add 70 for Volta: -DCMAKE_CUDA_ARCHITECTURES=70;90.
function(cudalabs_choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
  set(fallback "75;90")
  find_program(NVIDIA_SMI nvidia-smi)
  set(present "")
  if(NVIDIA_SMI)
    execute_process(COMMAND ${NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        if(cap MATCHES "^ *([0-9]+)\\.([0-9]+) *$")
          list(APPEND present "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES present)
    endif()
  endif()
  if(present)
    set(CMAKE_CUDA_ARCHITECTURES "${present}" CACHE STRING "CUDA architectures (from the GPUs present)")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${fallback}" CACHE STRING "CUDA architectures (no GPU found: fixed list)")
  endif()
endfunction()
