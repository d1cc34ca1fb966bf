# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The Shardscope Authors
# The Debian package: `cpack -G DEB` in the build directory writes shardscope_<version>_<arch>.deb with the GUI and
# the CLI (their install() rules are in app/gui and app/cli), the desktop entry, the icons, the AppStream
# metainfo and the copyright file. Included once from the top-level CMakeLists.txt, after the targets.
# tests/tst_package.cpp builds the package, inspects it and runs what it installs.
include(GNUInstallDirs)

# One reverse-DNS id names the desktop entry, the icon and the AppStream component.
set(SHARDSCOPE_APP_ID "io.github.shardscope.Shardscope")
set(SHARDSCOPE_HOMEPAGE_URL "https://github.com/shardscope/shardscope" CACHE STRING
    "Project home page, written into the package's control file (keep it equal to the metainfo's homepage)")
set(SHARDSCOPE_PACKAGE_MAINTAINER "Shardscope developers <shardscope@users.noreply.github.com>" CACHE STRING
    "Maintainer field of the Debian package: Name <email>")

if(SHARDSCOPE_BUILD_GUI)
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/${SHARDSCOPE_APP_ID}.desktop"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/${SHARDSCOPE_APP_ID}.metainfo.xml"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
  install(FILES "${PROJECT_SOURCE_DIR}/resources/icons/shardscope.svg"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps" RENAME "${SHARDSCOPE_APP_ID}.svg")
  # The PNGs are rendered from the SVG by packaging/render-icons.sh and committed.
  foreach(size 16 24 32 48 64 128 256 512)
    install(FILES "${PROJECT_SOURCE_DIR}/resources/icons/shardscope-${size}.png"
            DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps" RENAME "${SHARDSCOPE_APP_ID}.png")
  endforeach()
endif()

# Licence: Apache-2.0, the text in LICENSE at the top of the tree; copyright "The Shardscope Authors". A Debian
# package states both in /usr/share/doc/<package>/copyright, in Debian's machine-readable format (DEP-5).
install(FILES "${CMAKE_CURRENT_LIST_DIR}/copyright" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/shardscope")

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "shardscope")
set(CPACK_PACKAGE_VENDOR "The Shardscope developers")
set(CPACK_PACKAGE_CONTACT "${SHARDSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "planner and explorer for sharding ML models over accelerator meshes")
# The long description, wrapped below 80 columns as Debian policy asks; "." is an empty line.
set(CPACK_PACKAGE_DESCRIPTION
    "Shardscope finds and explains how to split the computation of a machine-learning
model across a mesh of accelerators. It reads StableHLO text (JAX, PyTorch/XLA),
ONNX or a built-in model zoo, builds the training step, groups tensor dimensions
into names that must be sharded alike, prices sharding plans (step time,
collectives, memory per device) and searches them with Monte Carlo Tree Search.
.
This package contains the explorer (shardscope), a Qt desktop application, and
the command-line tool (shardscope-cli).")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SHARDSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${SHARDSCOPE_HOMEPAGE_URL}")
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The binaries carry debug information in RelWithDebInfo builds; the package ships them stripped.
set(CPACK_STRIP_FILES ON)
# Depends is computed by dpkg-shlibdeps from the libraries the binaries link (Qt, Graphviz, SQLite, zlib,
# protobuf, the C++ runtime, ...), with the versions the build saw.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Nothing is listed by hand in Depends. The one run-time piece that is not a linked library is Qt's platform
# plugin, loaded with dlopen: on Debian 12 the xcb and offscreen plugins ship in libqt6gui6 itself, which
# dpkg-shlibdeps already lists (qt6-qpa-plugins holds only vnc and tuiotouch, so it is not needed). The native
# Wayland plugin is optional (Qt falls back to xcb through XWayland), hence a recommendation.
if(SHARDSCOPE_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-wayland")
endif()

include(CPack)
