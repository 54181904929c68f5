# BLIS, for f32/f64 matrix products (src/core/gemm.cpp): the imported target
# Tlaloc::BLIS. Each BLIS call takes its thread count with it, so linking Tlaloc sets
# nothing global: a program's own BLAS keeps its settings (docs/PERFORMANCE.md).
# Any of Debian's builds will do (libblis4-serial, -pthread, -openmp).
if(NOT TARGET Tlaloc::BLIS)
  find_path(TLALOC_BLIS_INCLUDE_DIR blis.h REQUIRED)
  find_library(TLALOC_BLIS_LIBRARY blis REQUIRED)
  add_library(Tlaloc::BLIS INTERFACE IMPORTED)
  target_include_directories(Tlaloc::BLIS INTERFACE ${TLALOC_BLIS_INCLUDE_DIR})
  target_link_libraries(Tlaloc::BLIS INTERFACE ${TLALOC_BLIS_LIBRARY})
endif()
