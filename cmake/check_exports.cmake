# ctest layers.exports_public_api: libtlaloc exports what the public headers declare
# and none of the internal layers' namespaces (include/tlaloc/export.hpp).
#   cmake -DNM=nm -DLIB=libtlaloc.so -P cmake/check_exports.cmake
execute_process(COMMAND ${NM} -DC --defined-only ${LIB} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} could not read ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(internal "")
set(public 0)
foreach(line IN LISTS lines)
  # "<address> <kind> <name>", where a name may start "typeinfo for " or "vtable for ".
  if(line MATCHES "^[0-9a-f]+ [A-Za-z] ((typeinfo name|typeinfo|vtable|VTT) for )?tlaloc::(ad|cppgen|interp|io|ir|stablehlo|transforms|vmath)::")
    list(APPEND internal "${line}")
  elseif(line MATCHES "^[0-9a-f]+ [A-Za-z] tlaloc::")
    math(EXPR public "${public} + 1")
  endif()
endforeach()
list(LENGTH internal n)
message(STATUS "${LIB}: ${public} symbols of tlaloc:: exported, ${n} of internal namespaces")
if(n GREATER 0)
  list(SUBLIST internal 0 20 shown)
  list(JOIN shown "\n  " shown)
  message(FATAL_ERROR "libtlaloc exports internal symbols, e.g.\n  ${shown}")
endif()
# The public API is there: a public function, a class's method and an error's typeinfo.
foreach(want "tlaloc::add(tlaloc::Tensor const&, tlaloc::Tensor const&)" "tlaloc::Tensor::shape() const"
        "typeinfo for tlaloc::ShapeError")
  string(FIND "${symbols}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "libtlaloc does not export ${want}")
  endif()
endforeach()
