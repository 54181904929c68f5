# tlaloc_generate_gradients(<target> FILES <file>... [DUMP_DIR <dir>])
#
# Runs tlaloc-grad on each listed source of <target> at build time, with the
# target's include directories and definitions, and compiles its output in the
# file's place: each tl::grad / tl::value_and_grad of a function with a visible body
# becomes a call of C++ written for it. The readable gradients land in DUMP_DIR
# (default: <build dir>/<target>.gradients). The generated ops follow the order in
# which the target's compiler evaluates call arguments (unspecified in C++), as a
# traced tl::grad would record them. The tool runs again when the file or a header
# it includes changes (its depfile). Precompiled headers of the files' leading
# `#include <...>` lines are kept in <top build dir>/tlaloc-grad.cache and shared by
# every run with the same lines and flags. docs/BUILD_TIME_GRADIENTS.md.
function(tlaloc_generate_gradients target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DUMP_DIR" "FILES")
  if(NOT arg_FILES)
    message(FATAL_ERROR "tlaloc_generate_gradients(${target}): no FILES given")
  endif()
  if(NOT arg_DUMP_DIR)
    set(arg_DUMP_DIR ${CMAKE_CURRENT_BINARY_DIR}/${target}.gradients)
  endif()
  if(TARGET tlaloc_grad)
    set(tool tlaloc_grad)
    set(tool_dependency tlaloc_grad)
  elseif(TARGET Tlaloc::tlaloc_grad)
    set(tool Tlaloc::tlaloc_grad)
    set(tool_dependency $<TARGET_FILE:Tlaloc::tlaloc_grad>)
  else()
    message(FATAL_ERROR "tlaloc_generate_gradients: tlaloc-grad was not built (TLALOC_BUILD_GRAD_TOOL)")
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(order right-to-left)
  else()
    set(order left-to-right)
  endif()
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(file IN LISTS arg_FILES)
    get_filename_component(source ${file} ABSOLUTE)
    get_filename_component(name ${file} NAME)
    get_filename_component(source_dir ${source} DIRECTORY)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}.tlaloc-grad/${name})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E env ${TLALOC_GRAD_ENVIRONMENT} $<TARGET_FILE:${tool}> ${source} -o ${out}
              --dump-dir ${arg_DUMP_DIR} --depfile ${out}.d --cache-dir ${CMAKE_BINARY_DIR}/tlaloc-grad.cache
              --arguments ${order} -- -std=c++20
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>" "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
      DEPENDS ${source} ${tool_dependency}
      DEPFILE ${out}.d
      COMMENT "tlaloc-grad: gradients of ${name}"
      COMMAND_EXPAND_LISTS VERBATIM)
    # The original stays in the target for IDEs, but the output is what compiles;
    # its quoted includes are found beside the original.
    set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
    set_source_files_properties(${out} TARGET_DIRECTORY ${target} PROPERTIES INCLUDE_DIRECTORIES ${source_dir})
    target_sources(${target} PRIVATE ${out})
  endforeach()
endfunction()
