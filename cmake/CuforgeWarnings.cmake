# Warnings are errors in our own code; third-party headers come in as SYSTEM.
# -Wrestrict is off: GCC 12 reports `"literal" + std::string` at -O3 as an
# overlapping memcpy (GCC bug 105651), a false positive in libstdc++ itself.
function(cuforge_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers -Wno-restrict>)
endfunction()

# A layer is an OBJECT library (folded into libcuforge) with public headers
# under <layer>/include and the export macro defined while building.
function(cuforge_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(cuforge_${name} OBJECT ${L_SOURCES})
  add_library(cuforge::${name} ALIAS cuforge_${name})
  target_include_directories(cuforge_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
  target_compile_definitions(cuforge_${name} PRIVATE CUFORGE_BUILDING_LIBRARY)
  target_link_libraries(cuforge_${name} PUBLIC ${L_DEPENDS})
  cuforge_warnings(cuforge_${name})
endfunction()
