# cmake -DFIXTURE=... -DRUNNER=... -DWORK=... -P run_c_inference.cmake
# Exports the fixture artifact, runs its entry point with the plain-C example, and
# requires the output bytes to equal the eager model's.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${FIXTURE} ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "serve_fixture failed (${rc})")
endif()
execute_process(COMMAND ${RUNNER} ${WORK} logits ${WORK}/out.bin ${WORK}/x.bin RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "c-inference failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/out.bin ${WORK}/expected.bin RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the C runtime's output differs from the eager model's")
endif()
# A damaged artifact: the C runtime reports the loader's error and fails.
file(APPEND ${WORK}/programs/logits.mlir " ")
execute_process(COMMAND ${RUNNER} ${WORK} logits ${WORK}/out.bin ${WORK}/x.bin RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "programs/logits.mlir: SHA-256 [0-9a-f]+ does not match")
  message(FATAL_ERROR "a damaged artifact was not refused by name: rc ${rc}, stderr: ${err}")
endif()
