# AddressSanitizer and UndefinedBehaviorSanitizer for the host code (CUDALABS_HOST_SANITIZERS, e.g.
# "address,undefined"): every C++ file and the host side of every .cu file are instrumented and every
# program is linked with the runtimes. Device code is not affected; compute-sanitizer covers it.
# Any UB report aborts the program (no recovery), so a test that triggers one fails.
if(CUDALABS_HOST_SANITIZERS)
  string(REPLACE "," ";" sanitizers "${CUDALABS_HOST_SANITIZERS}")
  set(flags -fno-omit-frame-pointer -fno-sanitize-recover=all)
  foreach(sanitizer IN LISTS sanitizers)
    list(APPEND flags "-fsanitize=${sanitizer}")
  endforeach()
  # nvcc splits -Xcompiler values on commas, so each flag is passed on its own.
  foreach(flag IN LISTS flags)
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${flag}>" "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${flag}>")
  endforeach()
  add_link_options("-fsanitize=${CUDALABS_HOST_SANITIZERS}")
  message(STATUS "cuda-labs: host code built with -fsanitize=${CUDALABS_HOST_SANITIZERS}")
endif()
