# The Debian package: cpack -G DEB in the build directory makes fogstudio_VERSION_ARCH.deb
# with both programs, the desktop entry and icon, the presets and the documentation
# (/usr/share/doc/fogstudio/, where the studio's Help looks for it).
#
# Licence: FogStudio links QCustomPlot (GPL-3.0), so the package is GPL-3.0-or-later; the
# full text is LICENSE, installed as /usr/share/doc/fogstudio/copyright as Debian expects.

include(GNUInstallDirs)

# Documentation and licence (the programs, desktop entry, icon and presets are installed by
# app/CMakeLists.txt).
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/fogstudio)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/fogstudio/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/fogstudio
        RENAME copyright)

set(CPACK_PACKAGE_NAME fogstudio)
set(CPACK_PACKAGE_VENDOR "FogStudio developers")
set(CPACK_PACKAGE_CONTACT "FogStudio developers <fogstudio@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "experiment studio for distributed machine learning (cloud, edge, devices)")
set(CPACK_PACKAGE_DESCRIPTION
    "FogStudio trains a real model (LibTorch) on real data over worker threads while a\n"
    "virtual clock accounts the time, money and energy the same job would take on a drawn\n"
    "system of cloud regions, edge servers and devices. The studio (fogstudio) draws\n"
    "topologies, runs, plots and compares; fogstudio-cli runs scenarios, sweeps (also with\n"
    "MPI), goal-seeking searches and exports headless.\n"
    "Licence: GPL-3.0-or-later.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/fogstudio/fogstudio")
# Shared-library dependencies come from dpkg-shlibdeps (Qt, LibTorch, yaml-cpp, SQLite,
# QCustomPlot, Open MPI when built with it); the rest is what the programs load at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The presets train on Fashion-MNIST from dataset-fashion-mnist.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "qt6-qpa-plugins, libqt6svg6, libopenblas0-pthread | libopenblas0, dataset-fashion-mnist")
# training.backend fast multiplies with BLIS when it is there (dlopen), else with OpenBLAS.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libblis4-serial")
# fogstudio-cli testbed runs ip and tc (docs/testbed.md).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "iproute2")
if(FOGSTUDIO_HAVE_MPI)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin, iproute2")
endif()
# The Python module (python/, /usr/lib/python3/dist-packages/fogstudio) is built for this
# python3 and returns pandas DataFrames; the notebooks plot with matplotlib.
if(FOGSTUDIO_HAVE_PYTHON)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
      "${FOGSTUDIO_PYTHON_DEB}, python3-pandas, python3-matplotlib, python3-nbclient | jupyter-notebook")
endif()
set(CPACK_STRIP_FILES ON)

include(CPack)
