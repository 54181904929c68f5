# Runs tlaloc-grad on one file of refusals/ and requires exit status 1 with the
# diagnostic its first line names (`// expect: LINE:COL: error: [CODE] text`), at
# the file's own path. Arguments: TOOL, FILE, OUT, INCLUDE.
file(STRINGS ${FILE} first LIMIT_COUNT 1)
string(REGEX REPLACE "^// expect: " "" expected "${first}")
execute_process(COMMAND ${TOOL} ${FILE} -o ${OUT}/out.cpp --dump-dir ${OUT} --cache-dir ${OUT}/../cache
                        -- -std=c++20 -I${INCLUDE}
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
string(FIND "${err}" "${FILE}:${expected}" at)
if(NOT rc EQUAL 1 OR at EQUAL -1)
  message(FATAL_ERROR "expected exit status 1 and\n  ${FILE}:${expected}\ngot status ${rc} and\n${err}${out}")
endif()
message(STATUS "${err}")
