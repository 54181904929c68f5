# tlaloc-grad's cache of precompiled headers (--cache-dir) changes nothing in what the
# tool writes: a run that fills the cache, one that reads it, one after a header the
# cache holds changed, and one over a corrupted cache each write what a run without
# the cache writes. Arguments: TOOL, FILE (cache/uses_model.cpp), OUT, INCLUDE.
set(lib ${OUT}/include/cachelib)
set(cache ${OUT}/cache)
file(REMOVE_RECURSE ${OUT})

function(write_model body)
  file(WRITE ${lib}/model.hpp "#pragma once\n#include <tlaloc/tlaloc.hpp>\nnamespace tl = tlaloc;\nnamespace cachelib {\n"
             "inline tl::Tensor model(const tl::Tensor& x) { return ${body}; }\n}  // namespace cachelib\n")
endfunction()

# Runs the tool into OUT/<name>/ and returns what it wrote (the gradients, then the
# rewritten file, whose includes name the run's directory), as one text.
function(run name result)
  execute_process(COMMAND ${TOOL} ${FILE} -o ${OUT}/${name}/out.cpp --dump-dir ${OUT}/${name}
                          --depfile ${OUT}/${name}/out.d ${ARGN} -- -std=c++20 -I${INCLUDE} -I${OUT}/include
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit status ${rc}\n${err}")
  endif()
  file(GLOB files ${OUT}/${name}/*.grad.cpp)
  list(SORT files)
  set(text "")
  foreach(f ${files} ${OUT}/${name}/out.cpp)
    file(READ ${f} t)
    string(REPLACE "${OUT}/${name}/" "" t "${t}")
    string(APPEND text "${t}")
  endforeach()
  set(${result} "${text}" PARENT_SCOPE)
endfunction()

function(expect_same what plain cached)
  if(NOT plain STREQUAL cached)
    message(FATAL_ERROR "${what}: the output differs from the run without the cache")
  endif()
endfunction()

# The inode and modification time of each precompiled header in the cache.
function(entries result)
  file(GLOB pchs ${cache}/*.pch)
  if(NOT pchs)
    set(${result} "none" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND stat -c "%i %y %s" ${pchs} OUTPUT_VARIABLE s)
  set(${result} "${s}" PARENT_SCOPE)
endfunction()

write_model("tl::sum(tl::sin(x) * x)")
run(plain1 plain)
run(cold cold --cache-dir ${cache})
expect_same("a run that fills the cache" "${plain}" "${cold}")
entries(filled)
if(filled STREQUAL "none")
  message(FATAL_ERROR "the cache holds no precompiled header after a run")
endif()
run(warm warm --cache-dir ${cache})
expect_same("a run that reads the cache" "${plain}" "${warm}")
# The entry was read, not built again nor dropped as misleading.
entries(read)
if(NOT read STREQUAL filled)
  message(FATAL_ERROR "the cache's entry changed on a run that should read it:\n${filled}\n${read}")
endif()
# The depfile names the header the precompiled header holds, and none of the cache's files.
file(READ ${OUT}/warm/out.d deps)
string(FIND "${deps}" "${cache}/" in_cache)
if(NOT deps MATCHES "cachelib/model.hpp" OR NOT in_cache EQUAL -1)
  message(FATAL_ERROR "the depfile of a run through the cache:\n${deps}")
endif()

# The header changes (its size too): the entry is built again.
write_model("tl::sum(tl::exp(x) * x * x)")
run(plain2 plain)
if(plain STREQUAL cold)
  message(FATAL_ERROR "the changed header changed nothing")
endif()
run(changed changed --cache-dir ${cache})
expect_same("a run after a header in the cache changed" "${plain}" "${changed}")

# A corrupted entry: the run parses without it, drops it, and the next builds it again.
file(GLOB pchs ${cache}/*.pch)
foreach(p ${pchs})
  file(WRITE ${p} "not a precompiled header")
endforeach()
run(corrupt corrupt --cache-dir ${cache})
expect_same("a run over a corrupted cache" "${plain}" "${corrupt}")
entries(dropped)
if(NOT dropped STREQUAL "none")
  message(FATAL_ERROR "the corrupted entry was kept:\n${dropped}")
endif()
run(rebuilt rebuilt --cache-dir ${cache})
expect_same("a run that builds the entry again" "${plain}" "${rebuilt}")
file(GLOB pchs ${cache}/*.pch)
file(SIZE ${pchs} size)
if(size LESS 100000)
  message(FATAL_ERROR "the entry built again is ${size} bytes")
endif()
