# PTX built from CUDA C++ with nvcc at build time, embedded as a string so the
# library carries its own device code and needs no files at run time.
#
#   cuforge_embed_ptx(<out_var> SYMBOL <c_name> SOURCE <file.cu>
#                     [ARCH compute_75] [INCLUDES dir...] [PREBUILT <file.ptx>])
#
# Appends the generated .cpp to <out_var> and leaves the .ptx beside it
# (${CMAKE_CURRENT_BINARY_DIR}/<c_name>.ptx) for ptxas checks in the tests.
# Without nvcc (a cpu-only machine building the sdist) the PTX is PREBUILT's,
# which scripts/build_wheel.sh puts in the sdist from a build with nvcc.
set(_cuforge_embed_script ${CMAKE_CURRENT_LIST_DIR}/embed_text.cmake)

function(cuforge_embed_ptx out_var)
  cmake_parse_arguments(P "" "SYMBOL;SOURCE;ARCH;PREBUILT" "INCLUDES" ${ARGN})
  if(NOT P_ARCH)
    # The oldest architecture CUDA 13 targets: the driver JITs it forward.
    set(P_ARCH compute_75)
  endif()
  get_filename_component(src ${P_SOURCE} ABSOLUTE)
  set(ptx ${CMAKE_CURRENT_BINARY_DIR}/${P_SYMBOL}.ptx)
  set(cpp ${CMAKE_CURRENT_BINARY_DIR}/${P_SYMBOL}_ptx.cpp)
  set(incs)
  foreach(dir ${P_INCLUDES})
    list(APPEND incs -I${dir})
  endforeach()
  if(NOT CUDAToolkit_NVCC_EXECUTABLE)
    if(NOT P_PREBUILT OR NOT EXISTS ${P_PREBUILT})
      message(FATAL_ERROR "${P_SYMBOL}: no nvcc to compile ${P_SOURCE} to PTX, and no prebuilt PTX "
                          "(${P_PREBUILT}; an sdist made by scripts/build_wheel.sh carries it)")
    endif()
    set(ptx ${P_PREBUILT})
  else()
    add_custom_command(
      OUTPUT ${ptx}
      COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -ptx -arch=${P_ARCH} -std=c++17 -O3
              ${incs} -o ${ptx} ${src}
      DEPENDS ${src}
      IMPLICIT_DEPENDS CXX ${src}
      COMMENT "nvcc -ptx ${P_SYMBOL}"
      VERBATIM)
  endif()
  add_custom_command(
    OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${ptx} -DOUT=${cpp} -DSYMBOL=${P_SYMBOL}
            -P ${_cuforge_embed_script}
    DEPENDS ${ptx} ${_cuforge_embed_script}
    VERBATIM)
  set(${out_var} ${${out_var}} ${cpp} PARENT_SCOPE)
endfunction()
