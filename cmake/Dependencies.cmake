# Third-party dependencies, all from Debian packages or the CUDA toolkit. Each missing one stops the
# configure step with the package that provides it.
find_package(CUDAToolkit REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found: install Debian's libgtest-dev "
                      "(apt-get install libgtest-dev) or point GTest_DIR at its CMake package.")
endif()

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(FATAL_ERROR "Google Benchmark not found: install Debian's libbenchmark-dev "
                      "(apt-get install libbenchmark-dev) or point benchmark_DIR at its CMake package.")
endif()

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  message(FATAL_ERROR "CLI11 not found: install Debian's libcli11-dev "
                      "(apt-get install libcli11-dev) or point CLI11_DIR at its CMake package.")
endif()

# stb_image_write (header only) writes the DCGAN's PNG grids.
find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
if(NOT STB_INCLUDE_DIR)
  message(FATAL_ERROR "stb_image_write.h not found: install Debian's libstb-dev "
                      "(apt-get install libstb-dev) or set STB_INCLUDE_DIR to the folder holding it.")
endif()

find_package(Git QUIET)
