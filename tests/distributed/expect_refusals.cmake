# Runs PROGRAM MODE under `MPIRUN -np 2` (TRANSPORT as Tlaloc's MPI transport, a
# collective timeout of 2 s): both processes must report a refusal containing each
# of EXPECT (pieces separated by '|'), within the time limit: never a hang.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TLALOC_MPI_TRANSPORT=${TRANSPORT} TLALOC_COLLECTIVE_TIMEOUT=2
                        ${MPIRUN} -np 2 --oversubscribe --allow-run-as-root -x TLALOC_MPI_TRANSPORT
                        -x TLALOC_COLLECTIVE_TIMEOUT ${PROGRAM} ${MODE}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${MODE}: exit ${rc}\n${out}${err}")
endif()
string(REPLACE "|" ";" pieces "${EXPECT}")
foreach(rank 0 1)
  string(REGEX MATCH "process ${rank}: [^\n]*" line "${err}")
  if(line STREQUAL "")
    message(FATAL_ERROR "${MODE}: process ${rank} did not report:\n${err}")
  endif()
  foreach(piece IN LISTS pieces)
    string(FIND "${line}" "${piece}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${MODE}: process ${rank} does not say '${piece}':\n${line}")
    endif()
  endforeach()
endforeach()
message(STATUS "${MODE}: refused on both processes:\n${err}")
