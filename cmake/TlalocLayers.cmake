# The library's layers (docs/ARCHITECTURE.md, "Layers"). Each layer is one object
# library made of folders of src/, and names the layers it uses: the layers below it
# that its code includes and calls. Two checks make the build keep to that order:
#  - tlaloc_check_layer_includes (cmake/check_layer_includes.cmake) fails the build where a
#    file includes a header of a folder that its layer may not use;
#  - each layer is linked once more on its own, as a shared library that must find
#    every symbol in itself or in the layers it uses (-Wl,--no-undefined), so a call
#    into a layer above fails the link, naming the symbol.
# Installed, the layers are one library, Tlaloc::tlaloc.

set(tlaloc_layers "")  # bottom first
set(tlaloc_layer_rows "")  # "layer|dirs|uses", read by the include check

# tlaloc_layer(NAME DIRS folder... [USES layer...] [LINKS external...])
function(tlaloc_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "DIRS;USES;LINKS")
  set(sources "")
  foreach(dir ${L_DIRS})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${dir}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  foreach(used ${L_USES})
    if(NOT used IN_LIST tlaloc_layers)
      message(FATAL_ERROR "layer ${name} uses ${used}, which is not a layer below it")
    endif()
  endforeach()
  add_library(tlaloc_layer_${name} OBJECT ${sources})
  set_target_properties(tlaloc_layer_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(tlaloc_layer_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(tlaloc_layer_${name} PUBLIC cxx_std_20)
  target_link_libraries(tlaloc_layer_${name} PRIVATE tlaloc_warnings tlaloc_arch PUBLIC fmt::fmt ${L_LINKS})
  list(TRANSFORM L_USES PREPEND tlaloc_layer_ OUTPUT_VARIABLE used_targets)
  if(used_targets)
    target_link_libraries(tlaloc_layer_${name} PUBLIC ${used_targets})
  endif()
  add_dependencies(tlaloc_layer_${name} tlaloc_check_layer_includes)

  if(TLALOC_CHECK_LAYERS)
    add_library(tlaloc_layer_${name}_check SHARED $<TARGET_OBJECTS:tlaloc_layer_${name}>)
    target_link_libraries(tlaloc_layer_${name}_check PRIVATE fmt::fmt ${L_LINKS})
    set(used_checks ${L_USES})
    list(TRANSFORM used_checks PREPEND tlaloc_layer_)
    list(TRANSFORM used_checks APPEND _check)
    if(used_checks)
      target_link_libraries(tlaloc_layer_${name}_check PUBLIC ${used_checks})
    endif()
    target_link_options(tlaloc_layer_${name}_check PRIVATE LINKER:--no-undefined)
    set_target_properties(tlaloc_layer_${name}_check PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/layers)
  endif()

  list(JOIN L_DIRS "," dirs)
  list(JOIN L_USES "," uses)
  set(tlaloc_layers ${tlaloc_layers} ${name} PARENT_SCOPE)
  set(tlaloc_layer_rows ${tlaloc_layer_rows} "${name}|${dirs}|${uses}" PARENT_SCOPE)
endfunction()
