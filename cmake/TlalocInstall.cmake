# What `cmake --install` puts where (docs/INSTALL.md). Every path an installed file
# holds is relative to that file, so a prefix moved elsewhere keeps working.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tlaloc tlaloc_serve EXPORT TlalocTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tlaloc_grad)
  set_target_properties(tlaloc_grad PROPERTIES INSTALL_RPATH "$ORIGIN/${tlaloc_bin_to_lib}")
  install(TARGETS tlaloc_grad EXPORT TlalocTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES cmake/TlalocGradients.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
endif()
install(DIRECTORY include/tlaloc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The command-line tool and the CPU plugin (found by its short name "tlaloc_cpu",
# src/runtime/pjrt/plugin.cpp). Both hold the library inside.
install(TARGETS tlaloc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tlaloc_pjrt_cpu LIBRARY DESTINATION ${TLALOC_INSTALL_PLUGINDIR})

# The Python package, with the plugin's path relative to it.
install(DIRECTORY python/tlaloc_serve DESTINATION ${TLALOC_INSTALL_PYTHONDIR} FILES_MATCHING PATTERN "*.py")
file(RELATIVE_PATH tlaloc_package_to_plugin ${CMAKE_INSTALL_PREFIX}/${TLALOC_INSTALL_PYTHONDIR}/tlaloc_serve
     ${CMAKE_INSTALL_PREFIX}/${TLALOC_INSTALL_PLUGINDIR}/${TLALOC_PLUGIN_FILE})
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/python/_installed.py CONTENT
     "\"\"\"Written by `cmake --install`: Tlaloc's CPU plugin, relative to this package.\"\"\"\nPLUGIN = \"${tlaloc_package_to_plugin}\"\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/python/_installed.py DESTINATION ${TLALOC_INSTALL_PYTHONDIR}/tlaloc_serve)

# pkg-config files for the C++ library and the C one.
set(tlaloc_pkgconfig_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH tlaloc_pkgconfig_to_prefix ${CMAKE_INSTALL_PREFIX}/${tlaloc_pkgconfig_dir} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" tlaloc_pkgconfig_to_prefix "${tlaloc_pkgconfig_to_prefix}")
foreach(pc tlaloc tlaloc_serve)
  configure_file(cmake/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${tlaloc_pkgconfig_dir})
endforeach()

install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(EXPORT TlalocTargets NAMESPACE Tlaloc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
configure_package_config_file(cmake/TlalocConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TlalocConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/TlalocConfigVersion.cmake
              cmake/TlalocBlis.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tlaloc)
include(cmake/TlalocPackage.cmake)
