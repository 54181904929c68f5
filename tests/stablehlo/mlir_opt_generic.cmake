# Checks that MLIR's own parser reads Tlaloc's generic emission: for every split of
# every conformance file, `tlaloc emit SPLIT --generic` is fed to
# `mlir-opt --allow-unregistered-dialect`, and any error fails the test.
#   cmake -DTLALOC=... -DMLIR_OPT=... -DTESTS_DIR=... -DWORK_DIR=... -P mlir_opt_generic.cmake
include(${CMAKE_CURRENT_LIST_DIR}/split_input.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(GLOB files ${TESTS_DIR}/*.mlir)
set(failures 0)
set(count 0)
set(newer 0)
foreach(file ${files})
  tlaloc_split_mlir(${file} ${WORK_DIR} splits)
  foreach(split ${splits})
    math(EXPR count "${count} + 1")
    execute_process(COMMAND ${TLALOC} emit ${split} --generic OUTPUT_FILE ${split}.generic
                    ERROR_VARIABLE emit_err RESULT_VARIABLE emit_rc)
    if(NOT emit_rc EQUAL 0)
      message(SEND_ERROR "${split}: tlaloc emit failed (${emit_rc}): ${emit_err}")
      math(EXPR failures "${failures} + 1")
      continue()
    endif()
    # MLIR 16 predates these element types; a split that uses one is counted apart.
    file(READ ${split}.generic generic_text)
    if(generic_text MATCHES "f8E4M3FNUZ|f8E5M2FNUZ|f8E4M3B11FNUZ|f8E3M4|f8E4M3[^F]|f8E8M0FNU|f4E2M1FN|f6E2M3FN|f6E3M2FN")
      math(EXPR newer "${newer} + 1")
      continue()
    endif()
    execute_process(COMMAND ${MLIR_OPT} --allow-unregistered-dialect ${split}.generic
                    OUTPUT_QUIET ERROR_VARIABLE opt_err RESULT_VARIABLE opt_rc)
    if(NOT opt_rc EQUAL 0)
      message(SEND_ERROR "${split} (from ${file}): mlir-opt rejects the generic form:\n${opt_err}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()
message(STATUS "${count} splits, ${failures} rejected, ${newer} not tried (element types newer than MLIR 16)")
