# ccache, where it is installed (scripts/setup installs it with the build group): every C++ and CUDA
# compile goes through it, with the paths under this checkout hashed relative to it, so that a second
# checkout of the same files (a student release, a clone elsewhere, a build folder of another name)
# reuses what the first compiled instead of compiling it again. CUDALABS_CCACHE=OFF compiles directly.
option(CUDALABS_CCACHE "Compile through ccache where it is installed" ON)
find_program(CUDALABS_CCACHE_PROGRAM ccache)
if(CUDALABS_CCACHE AND CUDALABS_CCACHE_PROGRAM)
  set(launcher "${CMAKE_COMMAND}" -E env "CCACHE_BASEDIR=${CMAKE_CURRENT_SOURCE_DIR}" "${CUDALABS_CCACHE_PROGRAM}")
  foreach(language IN ITEMS C CXX CUDA)
    if(NOT CMAKE_${language}_COMPILER_LAUNCHER)
      set(CMAKE_${language}_COMPILER_LAUNCHER "${launcher}")
    endif()
  endforeach()
  message(STATUS "cuda-labs: compiling through ${CUDALABS_CCACHE_PROGRAM}")
endif()
