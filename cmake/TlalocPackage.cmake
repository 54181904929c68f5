# The Debian package: `cpack -G DEB` in a release build directory writes
# tlaloc_<version>_<arch>.deb with everything `cmake --install` installs, under /usr
# (docs/INSTALL.md). ctest `package.deb` builds it, unpacks it and runs a C++, a C
# and a Python consumer against what it holds.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tlaloc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Differentiable programming for C++: gradients as C++ source, StableHLO, PJRT")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Tlaloc maintainers <maintainers@tlaloc.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
# What the installed files load: BLIS (any build), fmt, OpenSSL's libcrypto, the C++
# runtime; tlaloc-grad also libclang; the Python package python3.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libblis4-serial | libblis4, libfmt9, libssl3, libstdc++6, libgcc-s1, libc6, libclang-cpp14, libllvm14, python3")
include(CPack)
