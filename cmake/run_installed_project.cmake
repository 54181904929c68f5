# Configures, builds and runs a project of its own against an installed Tlaloc, as a
# user would (`cmake -P`, from ctest). Arguments:
#   SOURCE_DIR      the project (its CMakeLists.txt calls find_package(Tlaloc REQUIRED))
#   WORK_DIR        emptied first; the project is built in WORK_DIR/build
#   PREFIX          the installed Tlaloc (default WORK_DIR/prefix)
#   INSTALL_FROM    optional: a Tlaloc build tree to install into PREFIX first
#   COMPILER        the C++ compiler the library was built with
#   LINK_FLAGS      linker flags for the project's executables (the sanitizer runtime,
#                   when the library was built with one)
#   CONFIGURE_ARGS  optional list of extra arguments (-DNAME=VALUE) for the configure
#   RUN             list of commands, each one string "program arg ...", run in order
#                   in WORK_DIR/build; each must exit 0, or 1 when the string starts
#                   with "! " (a check that must fail)
# Lists given on the command line separate their items with `;` as usual.
foreach(required SOURCE_DIR WORK_DIR COMPILER RUN)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_installed_project.cmake: ${required} is not set")
  endif()
endforeach()
if(NOT PREFIX)
  set(PREFIX ${WORK_DIR}/prefix)
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# expect(RC DIR command ...): runs the command in DIR; any other exit status stops the
# script with the command's output.
function(expect expected dir)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc STREQUAL expected)
    message(FATAL_ERROR "exit status ${rc}, not ${expected}: ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()
function(step dir)
  expect(0 ${dir} ${ARGN})
endfunction()

if(INSTALL_FROM)
  step(${WORK_DIR} ${CMAKE_COMMAND} --install ${INSTALL_FROM} --prefix ${PREFIX})
endif()
step(${WORK_DIR} ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja -DCMAKE_CXX_COMPILER=${COMPILER}
     -DCMAKE_PREFIX_PATH=${PREFIX} "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}" ${CONFIGURE_ARGS})
step(${WORK_DIR} ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(command IN LISTS RUN)
  separate_arguments(argv UNIX_COMMAND "${command}")
  list(POP_FRONT argv program)
  set(status 0)
  if(program STREQUAL "!")  # a check that must fail: exit status 1
    set(status 1)
    list(POP_FRONT argv program)
  endif()
  if(NOT IS_ABSOLUTE ${program})
    set(program ${WORK_DIR}/build/${program})
  endif()
  expect(${status} ${WORK_DIR}/build ${program} ${argv})
endforeach()
