# The library's layers (docs/ARCHITECTURE.md, "Layers"). Each layer is one object
# library made of folders of src/, and names the layers it uses: the layers below it
# that its code includes and calls. Two checks make the build keep to that order:
#  - tlaloc_check_layer_includes (cmake/check_layer_includes.cmake) fails the build where a
#    file includes a header of a folder that its layer may not use;
#  - each layer is linked once more with the layers below it, as a shared library
#    that must find every symbol in them (-Wl,--no-undefined), so a call into a layer
#    above fails the link, naming the symbol.
# Installed, the layers are one library, Tlaloc::tlaloc. Their symbols are hidden but
# for the public headers' declarations (include/tlaloc/export.hpp).

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
  set_target_properties(tlaloc_layer_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden)
  target_include_directories(tlaloc_layer_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(tlaloc_layer_${name} PUBLIC cxx_std_20)
  target_link_libraries(tlaloc_layer_${name} PRIVATE tlaloc_warnings tlaloc_arch PUBLIC fmt::fmt ${L_LINKS})
  list(TRANSFORM L_USES PREPEND tlaloc_layer_ OUTPUT_VARIABLE used_targets)
  if(used_targets)
    target_link_libraries(tlaloc_layer_${name} PUBLIC ${used_targets})
  endif()
  add_dependencies(tlaloc_layer_${name} tlaloc_check_layer_includes)

  # The layer and every layer below it, and what they link: symbols are hidden, so
  # the check links their objects rather than the lower layers' own checks.
  set(below ${name})
  set(links ${L_LINKS})
  foreach(used ${L_USES})
    list(APPEND below ${tlaloc_layer_below_${used}})
    list(APPEND links ${tlaloc_layer_links_${used}})
  endforeach()
  list(REMOVE_DUPLICATES below)
  list(REMOVE_DUPLICATES links)
  set(tlaloc_layer_below_${name} ${below} PARENT_SCOPE)
  set(tlaloc_layer_links_${name} ${links} PARENT_SCOPE)
  if(TLALOC_CHECK_LAYERS)
    set(objects "")
    foreach(layer ${below})
      list(APPEND objects $<TARGET_OBJECTS:tlaloc_layer_${layer}>)
    endforeach()
    add_library(tlaloc_layer_${name}_check SHARED ${objects})
    target_link_libraries(tlaloc_layer_${name}_check PRIVATE fmt::fmt ${links})
    target_link_options(tlaloc_layer_${name}_check PRIVATE LINKER:--no-undefined)
    set_target_properties(tlaloc_layer_${name}_check PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/layers)
  endif()

  list(JOIN L_DIRS "," dirs)
  list(JOIN L_USES "," uses)
  set(tlaloc_layers ${tlaloc_layers} ${name} PARENT_SCOPE)
  set(tlaloc_layer_rows ${tlaloc_layer_rows} "${name}|${dirs}|${uses}" PARENT_SCOPE)
endfunction()
