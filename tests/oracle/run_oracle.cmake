# ctest's oracle.torch: writes the cases with oracle_cases, then checks them with
# PyTorch. Called as cmake -DCASES=... -DJSON=... -DPYTHON=... -DCHECK=... -P run_oracle.cmake.
execute_process(COMMAND ${CASES} ${JSON} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "oracle_cases failed (${rc})")
endif()
if(NOT EXISTS ${PYTHON})
  message(FATAL_ERROR "${PYTHON} not found: the oracle lane needs Debian's python3 with python3-torch; "
                      "run ./dev.sh test, which installs them")
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} ${JSON} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cases differ from PyTorch, or PyTorch is missing (see above)")
endif()
