# Install rules (`cmake --install build --prefix P`) and the Debian packages (`cpack -G DEB` in
# the build folder). The layout is the one program/install_layout.h looks for, relative to the
# executable: P/bin/gradlint, P/lib/gradlint/ (the C++ module, the clang-tidy plugin, the probe's
# tracer), P/share/{man,doc,bash-completion}. No build-tree path is baked into what is installed.
include(GNUInstallDirs)
set(GRADLINT_PRIVATE_LIBDIR lib/gradlint) # not CMAKE_INSTALL_LIBDIR: bin/../lib/gradlint is fixed

# --- Generated documentation: the man page and the bash completion, from the built gradlint ---
set(gradlint_man_page "${CMAKE_BINARY_DIR}/share/man/man1/gradlint.1")
set(gradlint_completion "${CMAKE_BINARY_DIR}/share/bash-completion/completions/gradlint")
foreach(output IN ITEMS man_page completion)
  if(output STREQUAL "man_page")
    set(arguments generate-man-page)
  else()
    set(arguments generate-shell-completion bash)
  endif()
  add_custom_command(
    OUTPUT "${gradlint_${output}}"
    COMMAND "${CMAKE_COMMAND}" "-DCOMMAND=$<TARGET_FILE:gradlint>;${arguments}"
            "-DOUTPUT=${gradlint_${output}}" -P "${CMAKE_SOURCE_DIR}/cmake/WriteCommandOutput.cmake"
    DEPENDS gradlint "${CMAKE_SOURCE_DIR}/cmake/WriteCommandOutput.cmake"
    COMMENT "Generating ${gradlint_${output}}" VERBATIM)
endforeach()
add_custom_target(gradlint_generated_docs ALL DEPENDS "${gradlint_man_page}" "${gradlint_completion}")

# --- What is installed, by package (CPack component) ---------------------------------------------
# Runtime (package gradlint): the checker for Python, its docs, and the probe's tracer (which links
# neither LibTorch nor Python).
install(TARGETS gradlint RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
install(FILES "${gradlint_man_page}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT Runtime)
install(FILES "${gradlint_completion}"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT Runtime)
install(FILES README.md .pre-commit-hooks.yaml DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT Runtime)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT Runtime)
# The Bazel rules (docs/integrations/bazel.md): local_repository(path = "/usr/share/gradlint/bazel").
install(DIRECTORY tool/bazel/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gradlint/bazel
        COMPONENT Runtime)
if(TARGET gradlint_probe)
  install(TARGETS gradlint_probe LIBRARY DESTINATION ${GRADLINT_PRIVATE_LIBDIR} COMPONENT Runtime)
  # The pytest plugin that names tests for the tracer: probe run looks for it in the folder
  # gradlint-probe/ beside the tracer library (tool/probe/probe_command.cpp).
  install(FILES tool/probe/gradlint_pytest.py DESTINATION ${GRADLINT_PRIVATE_LIBDIR}/gradlint-probe
          COMPONENT Runtime)
endif()
# Cpp (package gradlint-cpp): the C++ checker module and the clang-tidy plugin, with LLVM/Clang 19.
set(gradlint_components Runtime)
if(TARGET gradlint-cpp)
  install(TARGETS gradlint-cpp gradlint-tidy LIBRARY DESTINATION ${GRADLINT_PRIVATE_LIBDIR}
          COMPONENT Cpp)
  list(APPEND gradlint_components Cpp)
endif()
# Probe (package gradlint-probe): the replayer, linked with LibTorch. `gradlint` looks for it next
# to itself (tool/probe/probe_command.cpp).
if(TARGET gradlint-probe-replay)
  install(TARGETS gradlint-probe-replay RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT Probe)
  list(APPEND gradlint_components Probe)
endif()

# --- Debian packages: gradlint_<version>_amd64.deb, gradlint-cpp_..., gradlint-probe_... --------
# dpkg-shlibdeps (dpkg-dev) computes each package's Depends from the libraries it links; what is
# opened with dlopen it cannot see, so those packages are named here, found with dpkg-query.
function(gradlint_debian_package_of path out)
  set(package "")
  find_program(GRADLINT_DPKG_QUERY dpkg-query)
  if(GRADLINT_DPKG_QUERY AND EXISTS "${path}")
    file(REAL_PATH "${path}" real)
    execute_process(COMMAND "${GRADLINT_DPKG_QUERY}" -S "${real}" OUTPUT_VARIABLE owner
                    ERROR_QUIET RESULT_VARIABLE result)
    if(result EQUAL 0 AND owner MATCHES "^([^:,]+)")
      set(package "${CMAKE_MATCH_1}")
    endif()
  endif()
  set(${out} "${package}" PARENT_SCOPE)
endfunction()

set(CPACK_PACKAGE_NAME gradlint)
set(CPACK_PACKAGE_VENDOR gradlint)
set(CPACK_PACKAGE_CONTACT "gradlint developers <gradlint@users.noreply.github.com>")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/gradlint/gradlint")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static analyzer for PyTorch grad-mode misuse")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${gradlint_components})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME gradlint)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "static analyzer for PyTorch grad-mode misuse\n gradlint finds grad mode left disabled, guards never entered and broken training loops in Python code (gradlint-cpp adds C++).")
gradlint_debian_package_of("${LIBGIT2_LIBRARY}" libgit2_package) # opened when a run meets git
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${libgit2_package}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "gradlint-cpp (= ${PROJECT_VERSION}), gradlint-probe (= ${PROJECT_VERSION}), pre-commit")

set(CPACK_DEBIAN_CPP_PACKAGE_NAME gradlint-cpp)
set(CPACK_COMPONENT_CPP_DESCRIPTION
    "C++ checker module and clang-tidy plugin for gradlint\n Checks C++ and CUDA sources using LibTorch with Clang 19 (LibTooling), and a clang-tidy-19 plugin with the same rules.")
set(cpp_depends "gradlint (= ${PROJECT_VERSION})")
if(TARGET gradlint-cpp)
  # Clang's resource headers (stddef.h, ...), which the module compiles every file with.
  gradlint_debian_package_of("${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}/include/stddef.h"
                             clang_resource_package)
  if(clang_resource_package)
    string(APPEND cpp_depends ", ${clang_resource_package}")
  endif()
endif()
set(CPACK_DEBIAN_CPP_PACKAGE_DEPENDS "${cpp_depends}")
set(CPACK_DEBIAN_CPP_PACKAGE_SUGGESTS "clang-tidy-19")

set(CPACK_DEBIAN_PROBE_PACKAGE_NAME gradlint-probe)
set(CPACK_COMPONENT_PROBE_DESCRIPTION
    "runtime probe replayer for gradlint (LibTorch)\n Replays gradlint's findings with real LibTorch (gradlint check --confirm, gradlint probe replay).")
set(CPACK_DEBIAN_PROBE_PACKAGE_DEPENDS "gradlint (= ${PROJECT_VERSION})")
include(CPack)
