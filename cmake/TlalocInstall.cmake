include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tlaloc tlaloc_serve EXPORT TlalocTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tlaloc_grad)
  set_target_properties(tlaloc_grad PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS tlaloc_grad EXPORT TlalocTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES cmake/TlalocGradients.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
endif()
install(DIRECTORY include/tlaloc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT TlalocTargets NAMESPACE Tlaloc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
configure_package_config_file(cmake/TlalocConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TlalocConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
