# ccache, where it is installed (scripts/setup installs it with make test's optional groups): every
# C++ and CUDA compile goes through it, with the paths under this checkout hashed relative to it, so
# that a second checkout of the same files (a student release, a clone elsewhere, a build folder of
# another name) reuses what the first compiled instead of compiling it again. Its cache is ccache's
# own folder (CCACHE_DIR, else ~/.cache/ccache), or one in this build where that cannot be written (a
# read-only home). CUDALABS_CCACHE=OFF compiles directly.
option(CUDALABS_CCACHE "Compile through ccache where it is installed" ON)
find_program(CUDALABS_CCACHE_PROGRAM ccache)
if(CUDALABS_CCACHE AND CUDALABS_CCACHE_PROGRAM)
  execute_process(COMMAND "${CUDALABS_CCACHE_PROGRAM}" --get-config cache_dir
                  OUTPUT_VARIABLE cache_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
  set(writable OFF)
  if(status EQUAL 0 AND cache_dir)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${cache_dir}" RESULT_VARIABLE made
                    ERROR_QUIET)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${cache_dir}/.cudalabs-probe" RESULT_VARIABLE touched
                    ERROR_QUIET)
    if(made EQUAL 0 AND touched EQUAL 0)
      set(writable ON)
    endif()
  endif()
  set(environment "CCACHE_BASEDIR=${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT writable)
    set(cache_dir "${CMAKE_BINARY_DIR}/ccache")
    list(APPEND environment "CCACHE_DIR=${cache_dir}")
  endif()
  set(launcher "${CMAKE_COMMAND}" -E env ${environment} "${CUDALABS_CCACHE_PROGRAM}")
  foreach(language IN ITEMS C CXX CUDA)
    if(NOT CMAKE_${language}_COMPILER_LAUNCHER)
      set(CMAKE_${language}_COMPILER_LAUNCHER "${launcher}")
    endif()
  endforeach()
  message(STATUS "cuda-labs: compiling through ${CUDALABS_CCACHE_PROGRAM} (cache ${cache_dir})")
endif()
