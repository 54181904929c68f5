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
# The include check's table: one row "name|folder,folder|used,used" per layer, and
# per program above the layers (tlaloc_layer_program), folders relative to the root.
set_property(GLOBAL PROPERTY tlaloc_layer_rows "")
set_property(GLOBAL PROPERTY tlaloc_layer_checked_files "")

function(tlaloc_add_layer_row name folders uses)
  list(TRANSFORM folders PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE paths)
  list(TRANSFORM paths APPEND /*.cpp OUTPUT_VARIABLE cpp)
  list(TRANSFORM paths APPEND /*.hpp OUTPUT_VARIABLE hpp)
  list(TRANSFORM paths APPEND /*.h OUTPUT_VARIABLE h)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${cpp} ${hpp} ${h})
  list(JOIN folders "," folders)
  list(JOIN uses "," uses)
  set_property(GLOBAL APPEND PROPERTY tlaloc_layer_rows "${name}|${folders}|${uses}")
  set_property(GLOBAL APPEND PROPERTY tlaloc_layer_checked_files ${files})
endfunction()

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

  list(TRANSFORM L_DIRS PREPEND src/ OUTPUT_VARIABLE folders)
  tlaloc_add_layer_row(${name} "${folders}" "${L_USES}")
  set(tlaloc_layers ${tlaloc_layers} ${name} PARENT_SCOPE)
endfunction()

# tlaloc_layers_archive(NAME USES layer...): an interface target NAME that links the
# objects of the layers used and of every layer below them, as a static archive
# linked whole (each op registers itself as the program starts, so none may be left
# out) and before the program's own objects, so that the library's static objects are
# made first, as they are when it is a shared library (tests make tensors at start-up).
function(tlaloc_layers_archive name)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "USES")
  set(below "")
  set(links fmt::fmt)
  foreach(used ${L_USES})
    list(APPEND below ${tlaloc_layer_below_${used}})
    list(APPEND links ${tlaloc_layer_links_${used}})
  endforeach()
  list(REMOVE_DUPLICATES links)
  set(objects "")
  foreach(layer ${tlaloc_layers})  # bottom first, as the library links them
    if(layer IN_LIST below)
      list(APPEND objects $<TARGET_OBJECTS:tlaloc_layer_${layer}>)
    endif()
  endforeach()
  add_library(${name}_archive STATIC ${objects})
  target_include_directories(${name}_archive PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(${name}_archive PUBLIC cxx_std_20)
  target_link_libraries(${name}_archive PUBLIC ${links})
  add_library(${name} INTERFACE)
  target_link_options(${name} INTERFACE "LINKER:--whole-archive" "$<TARGET_FILE:${name}_archive>"
                      "LINKER:--no-whole-archive")
  target_link_libraries(${name} INTERFACE ${name}_archive)
endfunction()

# tlaloc_layer_program(TARGET FOLDER folder USES layer...): a program above the
# layers (tlaloc-grad) links the layers it uses, and the include check holds its
# folder to them as it holds a layer's.
function(tlaloc_layer_program target)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "FOLDER" "USES")
  tlaloc_layers_archive(${target}_layers USES ${L_USES})
  target_link_libraries(${target} PRIVATE ${target}_layers)
  tlaloc_add_layer_row(${target} "${L_FOLDER}" "${L_USES}")
endfunction()

# The include check, over every layer and program declared: call it last.
function(tlaloc_check_layer_includes)
  set(table ${PROJECT_BINARY_DIR}/layers/layers.txt)
  get_property(rows GLOBAL PROPERTY tlaloc_layer_rows)
  get_property(files GLOBAL PROPERTY tlaloc_layer_checked_files)
  list(JOIN rows "\n" lines)
  file(CONFIGURE OUTPUT ${table} CONTENT "${lines}\n")
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/layers/includes.stamp
    COMMAND ${CMAKE_COMMAND} -DTABLE=${table} -DROOT=${PROJECT_SOURCE_DIR}
            -P ${PROJECT_SOURCE_DIR}/cmake/check_layer_includes.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/layers/includes.stamp
    DEPENDS ${files} ${table} ${PROJECT_SOURCE_DIR}/cmake/check_layer_includes.cmake
    COMMENT "Checking that each layer includes only the layers it uses" VERBATIM)
  add_custom_target(tlaloc_check_layer_includes DEPENDS ${PROJECT_BINARY_DIR}/layers/includes.stamp)
endfunction()
