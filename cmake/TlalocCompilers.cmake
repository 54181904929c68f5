# Supported compilers (docs/COMPATIBILITY.md): GCC 12 or newer, Clang 14 or newer.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 12)
    message(FATAL_ERROR "Tlaloc needs GCC 12 or newer; found GCC ${CMAKE_CXX_COMPILER_VERSION}")
  endif()
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 14)
    message(FATAL_ERROR "Tlaloc needs Clang 14 or newer; found Clang ${CMAKE_CXX_COMPILER_VERSION}")
  endif()
else()
  message(FATAL_ERROR "Tlaloc supports GCC >= 12 and Clang >= 14; found ${CMAKE_CXX_COMPILER_ID} "
                      "${CMAKE_CXX_COMPILER_VERSION}")
endif()
