# ctest's oracle tests: writes the cases with a cases executable, then checks them
# with PyTorch. Called as
#   cmake -DCASES=... -DJSON=... -DPYTHON=... -DCHECK=... [-DCASES_ARGS=...] [-DEXPECT_FAIL=REGEX] -P run_oracle.cmake
# CASES_ARGS: more arguments for the cases executable (a ;-list). EXPECT_FAIL: the
# check must fail, and its output must match REGEX (tests of the checker itself).
execute_process(COMMAND ${CASES} ${JSON} ${CASES_ARGS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CASES} failed (${rc})")
endif()
if(NOT EXISTS ${PYTHON})
  message(FATAL_ERROR "${PYTHON} not found: the oracle lane needs Debian's python3 with python3-torch; "
                      "run ./dev.sh test, which installs them")
endif()
if(NOT DEFINED EXPECT_FAIL)
  execute_process(COMMAND ${PYTHON} ${CHECK} ${JSON} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cases differ from PyTorch, or PyTorch is missing (see above)")
  endif()
  return()
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} ${JSON} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the check passed where it must fail")
endif()
if(NOT out MATCHES "${EXPECT_FAIL}")
  message(FATAL_ERROR "the check failed (${rc}) but its output does not match '${EXPECT_FAIL}'")
endif()
