# The labs' declarations: every labs/NN_name/lab.json, read once at configure. Each lab declares
# itself there and nowhere else; labs/, tests/, the grader, the Makefile and the Python package read
# their lists of labs from these files (the Makefile and Python read the folders' lab.json directly).
#
# A declaration's fields (all required; docs/page_sources/architecture.md's recipe names them):
#   number            "NN", the folder's prefix
#   name              the folder's name after "NN_"
#   family            what the lab's variants compute: fp32_gemm, roofline, convolution, dcgan,
#                     tensor_core_gemm, reduction, attention (a new lab may name a new one)
#   sources           given files in the folder that both kernel libraries take (host code, shared
#                     device code; compiled once unless the file asks which build it is in):
#                     cudalabs_add_lab's SOURCES
#   uses              the earlier labs whose kernels this one runs ("07"): cudalabs_add_lab's USES
#   architectures     "all" (CMAKE_CUDA_ARCHITECTURES) or "sm90a": Hopper's architecture-specific
#                     target where 9.0 is built, and the define CUDALABS_LABNN_SM90A=1
#   launches          the folder's file that describes every kernel launch for the occupancy and
#                     resource checks (common/launch_catalog.h), or null for a lab with no kernels of
#                     its own
#   build             the folder's CMake file for its extra targets (included after the lab's own), or
#                     null
#   grader            how make grade reaches the lab: gemm_template (its proxy and runner generated
#                     from grader/labs/gemm_*.cpp.in) or proxy (grader/labs/labNN_proxy.cpp, _runner.cpp)
#   grader_selftest   whether the grader's end-to-end self-tests grade this lab
#   progression       an object: the lab's row of the progression table (README.md), which the docs read
#   effort            an object: its hours, difficulty and hard part, which the handouts and the
#                     instructors' guide quote (python/cudalabs/labs.py says what each key means)
set(CUDALABS_LAB_FIELDS number name family sources uses architectures launches build grader grader_selftest
    progression effort)

# cudalabs_read_lab_declarations(): sets CUDALABS_LAB_NUMBERS (sorted) in the caller, and for each
# lab NN the global properties CUDALABS_LAB_<NN>_<FIELD> (lists for sources and uses, "" for null,
# ON/OFF for grader_selftest) and CUDALABS_LAB_<NN>_FOLDER. Stops with one line naming the file and
# the field for a declaration that does not hold together.
function(cudalabs_read_lab_declarations)
  file(GLOB declarations LIST_DIRECTORIES false "${PROJECT_SOURCE_DIR}/labs/[0-9][0-9]_*/lab.json")
  list(SORT declarations)
  set(numbers "")
  foreach(declaration IN LISTS declarations)
    get_filename_component(lab_dir "${declaration}" DIRECTORY)
    get_filename_component(folder "${lab_dir}" NAME)
    file(READ "${declaration}" text)
    string(JSON count ERROR_VARIABLE error LENGTH "${text}")
    if(error)
      message(FATAL_ERROR "${declaration}: not a JSON object: ${error}")
    endif()
    # Every field known, every known field present.
    math(EXPR last "${count} - 1")
    foreach(index RANGE ${last})
      string(JSON field MEMBER "${text}" ${index})
      if(NOT field IN_LIST CUDALABS_LAB_FIELDS)
        message(FATAL_ERROR "${declaration}: unknown field '${field}' (the fields: ${CUDALABS_LAB_FIELDS})")
      endif()
    endforeach()
    foreach(field IN LISTS CUDALABS_LAB_FIELDS)
      string(JSON type ERROR_VARIABLE error TYPE "${text}" ${field})
      if(error)
        message(FATAL_ERROR "${declaration}: the field '${field}' is missing")
      endif()
      set(${field}_type ${type})
    endforeach()

    string(JSON number GET "${text}" number)
    string(JSON name GET "${text}" name)
    if(NOT "${number}_${name}" STREQUAL "${folder}")
      message(FATAL_ERROR "${declaration}: number '${number}' and name '${name}' are not its folder '${folder}'")
    endif()
    set(prefix CUDALABS_LAB_${number})
    set_property(GLOBAL PROPERTY ${prefix}_FOLDER "${folder}")
    foreach(field IN ITEMS family architectures launches build grader)
      if(${field}_type STREQUAL "NULL")
        set(value "")
      else()
        string(JSON value GET "${text}" ${field})
      endif()
      set_property(GLOBAL PROPERTY ${prefix}_${field} "${value}")
    endforeach()
    foreach(field IN ITEMS sources uses)
      if(NOT ${field}_type STREQUAL "ARRAY")
        message(FATAL_ERROR "${declaration}: '${field}' is a ${${field}_type}, not a list")
      endif()
      string(JSON length LENGTH "${text}" ${field})
      set(values "")
      if(length GREATER 0)
        math(EXPR last "${length} - 1")
        foreach(index RANGE ${last})
          string(JSON value GET "${text}" ${field} ${index})
          list(APPEND values "${value}")
        endforeach()
      endif()
      set_property(GLOBAL PROPERTY ${prefix}_${field} "${values}")
    endforeach()
    if(NOT grader_selftest_type STREQUAL "BOOLEAN")
      message(FATAL_ERROR "${declaration}: grader_selftest is a ${grader_selftest_type}, not true or false")
    endif()
    string(JSON selftest GET "${text}" grader_selftest)
    foreach(field IN ITEMS progression effort)  # the docs' fields: CMake checks only their form
      if(NOT ${field}_type STREQUAL "OBJECT")
        message(FATAL_ERROR "${declaration}: ${field} is a ${${field}_type}, not an object")
      endif()
    endforeach()
    set_property(GLOBAL PROPERTY ${prefix}_grader_selftest "${selftest}")

    # What the fields name exists and means something.
    get_property(architectures GLOBAL PROPERTY ${prefix}_architectures)
    if(NOT architectures MATCHES "^(all|sm90a)$")
      message(FATAL_ERROR "${declaration}: architectures '${architectures}' is not all or sm90a")
    endif()
    get_property(grader GLOBAL PROPERTY ${prefix}_grader)
    if(NOT grader MATCHES "^(gemm_template|proxy)$")
      message(FATAL_ERROR "${declaration}: grader '${grader}' is not gemm_template or proxy")
    endif()
    foreach(field IN ITEMS sources launches build)
      get_property(files GLOBAL PROPERTY ${prefix}_${field})
      foreach(file IN LISTS files)
        if(NOT EXISTS "${lab_dir}/${file}")
          message(FATAL_ERROR "${declaration}: ${field} names ${file}, which is not in ${lab_dir}")
        endif()
      endforeach()
    endforeach()
    get_property(uses GLOBAL PROPERTY ${prefix}_uses)
    foreach(used IN LISTS uses)
      if(NOT used IN_LIST numbers)  # the folders are read in order: an earlier lab is known by now
        message(FATAL_ERROR "${declaration}: uses '${used}', which is not an earlier lab")
      endif()
    endforeach()
    list(APPEND numbers ${number})
  endforeach()
  if(NOT numbers)
    message(FATAL_ERROR "no lab declarations (labs/NN_name/lab.json) under ${PROJECT_SOURCE_DIR}/labs")
  endif()
  set(CUDALABS_LAB_NUMBERS "${numbers}" PARENT_SCOPE)
endfunction()

# cudalabs_lab_field(<out> <NN> <field>): the declared value (see above).
function(cudalabs_lab_field out number field)
  get_property(value GLOBAL PROPERTY CUDALABS_LAB_${number}_${field})
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# cudalabs_labs_where(<out> <field> <value>): the numbers of the labs whose <field> is <value>.
function(cudalabs_labs_where out field value)
  set(found "")
  foreach(number IN LISTS CUDALABS_LAB_NUMBERS)
    get_property(declared GLOBAL PROPERTY CUDALABS_LAB_${number}_${field})
    if("${declared}" STREQUAL "${value}")
      list(APPEND found ${number})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# cudalabs_add_launch_checks(<target> <build>)
#
# Gives <target> every declared lab's launches (common/launch_catalog.h): each lab's `launches`
# file compiled in, its <build> kernels (student or solution) linked, and the table declared_labs()
# generated from the declarations. The occupancy test and the resource gate's launches program are
# such targets: a new lab is in both as soon as its lab.json names its launches.
function(cudalabs_add_launch_checks target build)
  set(forward "")
  set(entries "")
  foreach(number IN LISTS CUDALABS_LAB_NUMBERS)
    cudalabs_lab_field(folder ${number} FOLDER)
    cudalabs_lab_field(family ${number} family)
    cudalabs_lab_field(launches ${number} launches)
    if(launches)
      target_sources(${target} PRIVATE "${PROJECT_SOURCE_DIR}/labs/${folder}/${launches}")
      target_link_libraries(${target} PRIVATE lab${number}_${build}_kernels)
      string(APPEND forward "namespace lab${number} {\nvoid describe_launches(cudalabs::LaunchCatalog& catalog);\n}\n")
      string(APPEND entries "      {\"${number}\", \"${folder}\", \"${family}\", &lab${number}::describe_launches},\n")
    else()
      string(APPEND entries "      {\"${number}\", \"${folder}\", \"${family}\", nullptr},\n")
    endif()
  endforeach()
  set(table "${CMAKE_CURRENT_BINARY_DIR}/${target}_declared_labs.cpp")
  file(CONFIGURE OUTPUT "${table}" CONTENT
"// Generated by cudalabs_add_launch_checks (cmake/LabDeclarations.cmake) from labs/NN_name/lab.json.
#include \"common/launch_catalog.h\"

${forward}
namespace cudalabs {

std::span<const DeclaredLab> declared_labs() {
  static const DeclaredLab labs[] = {
${entries}  };
  return labs;
}

}  // namespace cudalabs
")
  target_sources(${target} PRIVATE "${table}")
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
endfunction()
