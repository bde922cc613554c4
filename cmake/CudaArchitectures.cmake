# Default CUDA architectures, and the oldest CMake and CUDA toolkit the suite builds with.
#
# The architectures: those of the GPUs present (nvidia-smi), else every architecture the suite teaches,
# so that a build configured where no GPU is visible (a cluster's login node, a container build, CI)
# still runs native code on the GPU it later meets:
#   7.5 Turing (T4, RTX 20): FP16 tensor cores, no cp.async
#   8.0 Ampere A100: cp.async, BF16 tensor cores; 8.6 (RTX 30, A10, A40) and 8.9 (Ada: RTX 40, L4, L40)
#       run 8.0's machine code natively (machine code runs on every GPU of its major version and a newer
#       minor one), and no lab has code of their own, so a build for them would only double the compile
#   9.0 Hopper H100 / H200: wgmma, TMA (lab 11 builds sm_90a for it)
# as machine code ("-real"), plus compute_90 PTX that newer GPUs (Blackwell) JIT-compile. A GPU older than
# 7.5 is not supported by CUDA 13; a CUDA 12 toolkit can still add 70 (-DCMAKE_CUDA_ARCHITECTURES=70;90).
# Every driver says in its first lines when its code was JIT-compiled from older PTX or lacks a feature
# its lab teaches (common/build_report.h), so a build for the wrong GPU is never silent.

# The oldest CUDA toolkit that builds the suite: 12.5 (cudaGetDriverEntryPointByVersion, for lab 11's
# TMA maps; wgmma, setmaxnreg, TMA and nvcc's C++20 need 12.0). The oldest CMake, 3.24, is checked at the
# top of CMakeLists.txt, before anything else. The suite is tested with CUDA 13.0 and CMake 3.25.
set(CUDALABS_MIN_CUDA 12.5)
set(CUDALABS_TAUGHT_ARCHITECTURES "75-real;80-real;90")

function(cudalabs_choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
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
    set(CMAKE_CUDA_ARCHITECTURES "${CUDALABS_TAUGHT_ARCHITECTURES}" CACHE STRING
        "CUDA architectures (no GPU found: every architecture the suite teaches, PTX beyond)")
  endif()
endfunction()

# Before project(): one line, and a stop, for a CUDA toolkit older than the suite needs (CMake's own
# compiler check would fail later with pages of nvcc errors about unknown architectures). The nvcc asked is
# the one project() will take: CMAKE_CUDA_COMPILER, else $CUDACXX, else the first on PATH or in
# /usr/local/cuda/bin; without one, project() says that no CUDA compiler was found.
function(cudalabs_check_cuda_toolkit)
  if(CMAKE_CUDA_COMPILER)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX})
    set(nvcc "$ENV{CUDACXX}")
  else()
    find_program(CUDALABS_NVCC nvcc PATHS /usr/local/cuda/bin)
    set(nvcc "${CUDALABS_NVCC}")
  endif()
  if(NOT nvcc OR NOT EXISTS "${nvcc}")
    return()
  endif()
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE text ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "release ([0-9]+\\.[0-9]+)")
    return()
  endif()
  if(CMAKE_MATCH_1 VERSION_LESS CUDALABS_MIN_CUDA)
    # NOTICE prints the line as it is (FATAL_ERROR would wrap it); FATAL_ERROR then stops.
    message(NOTICE "cuda-labs needs CUDA ${CUDALABS_MIN_CUDA} or newer; ${nvcc} is CUDA ${CMAKE_MATCH_1}: "
                   "install a newer toolkit (13.0 is tested) and put its nvcc first on PATH, or pass "
                   "-DCMAKE_CUDA_COMPILER=/path/to/nvcc")
    message(FATAL_ERROR "CUDA toolkit too old (see the line above)")
  endif()
endfunction()
