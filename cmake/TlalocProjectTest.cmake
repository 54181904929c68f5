# Tests that build a project of its own against an installed Tlaloc, as a user would
# (cmake/run_installed_project.cmake does the work).
#
#   tlaloc_add_project_test(NAME SOURCE_DIR <dir> RUN <command>... [CONFIGURE_ARGS <-DNAME=VALUE>...])
#
# configures and builds <dir> with this build's compiler against this build installed
# into one prefix, then runs each RUN command ("program arg ...", the program relative
# to the project's build directory), each of which must exit 0 (1 for a command
# written "! program arg ...": a check that must fail). The install is the
# test `install.prefix`, a fixture shared by every such test, so that tests run in
# parallel never write the same prefix at once.
set(tlaloc_project_test_script ${CMAKE_CURRENT_LIST_DIR}/run_installed_project.cmake)
set(tlaloc_project_test_prefix ${PROJECT_BINARY_DIR}/installed)
# The sanitizer runtime, for executables linking a sanitized libtlaloc.
set(tlaloc_project_test_link_flags "$<$<BOOL:${TLALOC_SANITIZE}>:-fsanitize=address,undefined>")

add_test(NAME install.prefix
         COMMAND sh -c "rm -rf \"$0\" && \"$1\" --install \"$2\" --prefix \"$0\""
                 ${tlaloc_project_test_prefix} ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR})
set_tests_properties(install.prefix PROPERTIES FIXTURES_SETUP tlaloc_installed)

function(tlaloc_add_project_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE_DIR" "RUN;CONFIGURE_ARGS")
  if(NOT arg_SOURCE_DIR OR NOT arg_RUN)
    message(FATAL_ERROR "tlaloc_add_project_test(${name}): needs SOURCE_DIR and RUN")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${arg_SOURCE_DIR}
                   -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/${name}
                   -DPREFIX=${tlaloc_project_test_prefix}
                   -DCOMPILER=${CMAKE_CXX_COMPILER}
                   "-DLINK_FLAGS=${tlaloc_project_test_link_flags}"
                   "-DCONFIGURE_ARGS=${arg_CONFIGURE_ARGS}"
                   "-DRUN=${arg_RUN}"
                   -P ${tlaloc_project_test_script})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED tlaloc_installed)
endfunction()
