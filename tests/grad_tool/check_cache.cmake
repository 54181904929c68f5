# tlaloc-grad's cache of precompiled headers (--cache-dir) changes nothing in what the
# tool writes: a run that fills the cache, one that reads it, one after a header the
# cache holds changed, and one over a corrupted cache each write what a run without
# the cache writes. An entry is built by a process the run leaves behind, holding a
# lock on the entry's lock file. Arguments: TOOL, FILE (cache/uses_model.cpp), OUT,
# INCLUDE.
set(lib ${OUT}/include/cachelib)
set(cache ${OUT}/cache)
file(REMOVE_RECURSE ${OUT})

function(write_model body)
  file(WRITE ${lib}/model.hpp "#pragma once\n#include <tlaloc/tlaloc.hpp>\nnamespace tl = tlaloc;\nnamespace cachelib {\n"
             "inline tl::Tensor model(const tl::Tensor& x) { return ${body}; }\n}  // namespace cachelib\n")
endfunction()

# Runs the tool on `input` (FILE unless set) into OUT/<name>/, under `launcher` when
# set, and returns what it wrote (the gradients, then the rewritten file, whose
# includes name the run's directory), as one text.
set(input ${FILE})
function(run name result)
  execute_process(COMMAND ${launcher} ${TOOL} ${input} -o ${OUT}/${name}/out.cpp --dump-dir ${OUT}/${name}
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

# Waits until no entry is being built (its lock released), as a next run would not.
function(settle)
  file(GLOB locks ${cache}/*.lock)
  foreach(lock ${locks})
    execute_process(COMMAND flock ${lock} true TIMEOUT 120 RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "the entry of ${lock} is still being built after 2 minutes")
    endif()
  endforeach()
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
settle()
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
settle()

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
settle()
file(GLOB pchs ${cache}/*.pch)
file(SIZE ${pchs} size)
if(size LESS 100000)
  message(FATAL_ERROR "the entry built again is ${size} bytes")
endif()

# A build in flight (`flock` holds the entry's lock while the tool runs): the run goes
# on without the entry and builds none. The lock released, as by a builder that died,
# the next run builds it. The file has the same includes, so the same entry, and no
# Hessian, whose parse would wait for the lock.
string(REGEX REPLACE "\\.pch$" ".lock" lock "${pchs}")
file(REMOVE ${pchs})
set(input ${OUT}/no_hessian.cpp)
file(WRITE ${input} "#include <cachelib/model.hpp>\n#include <tlaloc/tlaloc.hpp>\n\n"
                    "tl::Tensor slope(const tl::Tensor& x) {\n"
                    "  return tl::grad([](const tl::Tensor& a) { return cachelib::model(a); })(x);\n}\n")
set(launcher flock ${lock})
run(locked locked --cache-dir ${cache})
unset(launcher)
run(unlocked_plain unlocked_plain)
expect_same("a run while another builds the entry" "${unlocked_plain}" "${locked}")
entries(waiting)
if(NOT waiting STREQUAL "none")
  message(FATAL_ERROR "a run built the entry another run is building")
endif()
run(unlocked unlocked --cache-dir ${cache})
expect_same("a run after the builder left" "${unlocked_plain}" "${unlocked}")
settle()
entries(taken_over)
if(taken_over STREQUAL "none")
  message(FATAL_ERROR "a released lock kept the entry from being built")
endif()
