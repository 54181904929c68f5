# Runs PROGRAM alone (two devices as threads) and under `MPIRUN -np 2` (one device per
# process, TRANSPORT as Tlaloc's MPI transport). Both runs must succeed, both processes
# must report (on stderr, "process 1 of 2: ..."), and the printed bits must be the same.
execute_process(COMMAND ${PROGRAM} OUTPUT_VARIABLE threads ERROR_VARIABLE threads_err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR threads STREQUAL "")
  message(FATAL_ERROR "alone: exit ${rc}\n${threads}${threads_err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env TLALOC_MPI_TRANSPORT=${TRANSPORT}
                        ${MPIRUN} -np 2 --oversubscribe --allow-run-as-root -x TLALOC_MPI_TRANSPORT ${PROGRAM}
                OUTPUT_VARIABLE mpi ERROR_VARIABLE mpi_err RESULT_VARIABLE rc TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "under mpirun: exit ${rc}\n${mpi}${mpi_err}")
endif()
string(FIND "${mpi_err}" "process 1 of 2: " second)
if(second EQUAL -1)
  message(FATAL_ERROR "under mpirun, the second process did not report:\n${mpi_err}")
endif()
if(NOT threads STREQUAL mpi)
  message(FATAL_ERROR "threads and MPI processes differ:\nthreads:\n${threads}\nMPI:\n${mpi}")
endif()
message(STATUS "the same bits alone and under mpirun:\n${mpi}${mpi_err}")
