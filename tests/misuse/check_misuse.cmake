# cmake -DCOMPILER=... -DINCLUDE=... -DFILE=... -P check_misuse.cmake
# A misuse of the API must fail to compile with one error, the one its file's
# "// expect:" line gives, not pages of template errors.
file(STRINGS ${FILE} expect REGEX "^// expect: ")
string(REGEX REPLACE "^// expect: " "" expect "${expect}")
execute_process(COMMAND ${COMPILER} -std=c++20 -fsyntax-only -I${INCLUDE} ${FILE}
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
string(REGEX MATCHALL "error:[^\n]*" errors "${err}")
list(LENGTH errors count)
if(rc EQUAL 0)
  message(FATAL_ERROR "${FILE} compiled; it must not")
endif()
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${count} errors, not 1:\n${err}")
endif()
string(FIND "${errors}" "${expect}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the error does not say \"${expect}\":\n${err}")
endif()
message(STATUS "${errors}")
