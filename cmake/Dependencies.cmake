# Third-party dependencies, all from Debian packages or the CUDA toolkit. scripts/setup installs them
# (make test and make run call it first); each missing one stops the configure step with the package
# that provides it.

# An offline bundle (scripts/setup --bundle, carried as .deps or named by CUDALABS_DEPS) fills in what
# the system lacks: it is searched after the system's own folders, so an installed package wins.
if(DEFINED ENV{CUDALABS_DEPS})
  set(CUDALABS_DEPS_ROOT "$ENV{CUDALABS_DEPS}/root/usr")
else()
  set(CUDALABS_DEPS_ROOT "${PROJECT_SOURCE_DIR}/.deps/root/usr")
endif()
if(IS_DIRECTORY "${CUDALABS_DEPS_ROOT}")
  list(APPEND CMAKE_SYSTEM_PREFIX_PATH "${CUDALABS_DEPS_ROOT}")
  message(STATUS "cuda-labs: offline packages from ${CUDALABS_DEPS_ROOT}")
endif()

find_package(CUDAToolkit REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found: run scripts/setup (Debian's libgtest-dev) "
                      "or point GTest_DIR at its CMake package.")
endif()

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(FATAL_ERROR "Google Benchmark not found: run scripts/setup (Debian's libbenchmark-dev) "
                      "or point benchmark_DIR at its CMake package.")
endif()

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  message(FATAL_ERROR "CLI11 not found: run scripts/setup (Debian's libcli11-dev) "
                      "or point CLI11_DIR at its CMake package.")
endif()

find_package(nlohmann_json 3.10 CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann/json not found: run scripts/setup (Debian's nlohmann-json3-dev) "
                      "or point nlohmann_json_DIR at its CMake package.")
endif()

# stb_image_write (header only) writes the DCGAN's PNG grids.
find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
if(NOT STB_INCLUDE_DIR)
  message(FATAL_ERROR "stb_image_write.h not found: run scripts/setup (Debian's libstb-dev) "
                      "or set STB_INCLUDE_DIR to the folder holding it.")
endif()

find_package(Git QUIET)
