# cmake -DFIXTURE=<serve_fixture> -DOUT=<dir> -P make_seeds.cmake
# Seeds for the loaders' fuzz targets, from a real exported artifact: its weights
# (safetensors), its manifest, and the three files joined as c_api_fuzz.cpp reads them.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${FIXTURE} ${OUT}/artifact RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "serve_fixture failed (${rc})")
endif()
file(MAKE_DIRECTORY ${OUT}/safetensors ${OUT}/manifest ${OUT}/c_api)
file(COPY_FILE ${OUT}/artifact/weights.safetensors ${OUT}/safetensors/weights.safetensors)
file(COPY_FILE ${OUT}/artifact/manifest.json ${OUT}/manifest/manifest.json)
file(WRITE ${OUT}/separator "\n--tlaloc-fuzz-file--\n")
execute_process(COMMAND cat ${OUT}/artifact/manifest.json ${OUT}/separator ${OUT}/artifact/weights.safetensors
                            ${OUT}/separator ${OUT}/artifact/programs/logits.mlir
                OUTPUT_FILE ${OUT}/c_api/artifact RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot join the seed files (${rc})")
endif()
