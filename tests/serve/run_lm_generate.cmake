# cmake -DLM=... -DARTIFACT_OUT=... -DWORK=... -DKIND=c|python [-DRUNNER=...] [-DPLUGIN=...]
#       [-DPYTHONPATH=...] -P run_lm_generate.cmake
# Greedy generation over examples/lm's artifact from C (RUNNER: c-generate) or from the
# bare-Python runtime (python3 -m tlaloc_serve.generate on PLUGIN) must give exactly the
# ids the C++ example writes (lm --load --ids, itself checked against eager generation),
# for a prompt in each bucket; a prompt past the largest bucket, an empty one and a
# cache overflow must be refused by name.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(KIND STREQUAL "c")
  set(generate ${RUNNER})
else()
  set(generate ${CMAKE_COMMAND} -E env PYTHONPATH=${PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
               TLALOC_PJRT_PLUGIN_PATH=${PLUGIN} /usr/bin/python3 -m tlaloc_serve.generate)
endif()

function(compare prompt tokens tag)
  execute_process(COMMAND ${LM} --load --out ${ARTIFACT_OUT} --prompt ${prompt} --tokens ${tokens}
                          --ids ${WORK}/${tag}.cpp.txt RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lm --load failed (${rc}) for prompt '${prompt}'")
  endif()
  execute_process(COMMAND ${generate} ${ARTIFACT_OUT}/artifact ${prompt} ${tokens} ${WORK}/${tag}.${KIND}.txt
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${KIND} loop failed (${rc}) for prompt '${prompt}': ${err}")
  endif()
  file(READ ${WORK}/${tag}.cpp.txt want)
  file(READ ${WORK}/${tag}.${KIND}.txt got)
  string(REGEX MATCHALL " " spaces "${want}")
  list(LENGTH spaces n)
  math(EXPR expected_ids "${prompt_length} + ${tokens} - 1")
  if(NOT n EQUAL expected_ids)
    message(FATAL_ERROR "the C++ example wrote ${n}+1 ids, expected ${prompt_length} + ${tokens}: ${want}")
  endif()
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "the ${KIND} loop's ids differ from the C++ example's for prompt '${prompt}':\n"
                        "  C++: ${want}  ${KIND}: ${got}")
  endif()
  message(STATUS "${KIND} = C++ for '${prompt}' (${tokens} tokens): ${got}")
endfunction()

set(prompt_length 16)
compare("This program is " 48 bucket_16)
set(prompt_length 29)
compare("Everyone is permitted to copy" 40 bucket_64)

string(REPEAT "0123456789abcdef" 4 long_prompt)
execute_process(COMMAND ${generate} ${ARTIFACT_OUT}/artifact "${long_prompt}x" 4
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "a prompt of 65 tokens is longer than prefill's bound of 64")
  message(FATAL_ERROR "the ${KIND} loop did not refuse a 65-token prompt by name: rc ${rc}, stderr: ${err}")
endif()
# The other refusals, in the C++ loop's words: an empty prompt, a cache overflow.
execute_process(COMMAND ${generate} ${ARTIFACT_OUT}/artifact "" 4 RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "the prompt is empty; prefill needs at least one token")
  message(FATAL_ERROR "the ${KIND} loop did not refuse an empty prompt by name: rc ${rc}, stderr: ${err}")
endif()
execute_process(COMMAND ${generate} ${ARTIFACT_OUT}/artifact "This program is " 113
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "a prompt of 16 tokens and 113 generated do not fit the KV cache of 128 positions")
  message(FATAL_ERROR "the ${KIND} loop did not refuse a cache overflow by name: rc ${rc}, stderr: ${err}")
endif()
