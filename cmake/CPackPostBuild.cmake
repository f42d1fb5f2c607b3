# CPACK_POST_BUILD_SCRIPTS (cmake/Packaging.cmake): runs in cpack once the packages are made
# (CPACK_PACKAGE_FILES, still in the staging folder) and before cpack copies them to the package
# directory.
#  1. CPack gives a package with a shared object under /usr/lib a postinst and a postrm that run
#     ldconfig. Ours (/usr/lib/gradlint/*.so) are modules opened by path, which ldconfig never
#     looks at, and a postrm keeps a removed package in dpkg's "rc" state until it is purged:
#     the scripts are taken out.
#  2. The build folder's install manifests are put back as they were before cpack.
#  3. Packaging in the scratch folder (no -B): the packages are copied into the build folder.
find_program(dpkg_deb dpkg-deb REQUIRED)
foreach(package IN LISTS CPACK_PACKAGE_FILES)
  get_filename_component(name "${package}" NAME)
  set(tree "${CPACK_TOPLEVEL_DIRECTORY}/repack/${name}")
  file(REMOVE_RECURSE "${tree}")
  file(MAKE_DIRECTORY "${CPACK_TOPLEVEL_DIRECTORY}/repack")
  execute_process(COMMAND "${dpkg_deb}" --raw-extract "${package}" "${tree}"
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "dpkg-deb --raw-extract ${package} failed")
  endif()
  set(scripts "")
  foreach(script IN ITEMS postinst postrm)
    if(EXISTS "${tree}/DEBIAN/${script}")
      file(READ "${tree}/DEBIAN/${script}" text)
      string(REGEX REPLACE "#![^\n]*|set -e|if \\[ \"\\$1\" = \"[a-z]+\" \\]; then|ldconfig|fi|[ \t\n]"
             "" rest "${text}")
      if(NOT rest STREQUAL "")
        message(FATAL_ERROR "${name}: ${script} does more than run ldconfig:\n${text}")
      endif()
      file(REMOVE "${tree}/DEBIAN/${script}")
      list(APPEND scripts ${script})
    endif()
  endforeach()
  if(scripts)
    execute_process(COMMAND "${dpkg_deb}" --root-owner-group -Zgzip --build "${tree}" "${package}"
                    OUTPUT_QUIET RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "dpkg-deb --build ${tree} failed")
    endif()
  endif()
endforeach()
file(REMOVE_RECURSE "${CPACK_TOPLEVEL_DIRECTORY}/repack")

file(GLOB written "${CPACK_GRADLINT_BUILD_DIRECTORY}/install_manifest_*.txt")
if(written)
  file(REMOVE ${written})
endif()
file(GLOB kept "${CPACK_TOPLEVEL_DIRECTORY}/install-manifests/install_manifest_*.txt")
foreach(manifest IN LISTS kept)
  file(COPY "${manifest}" DESTINATION "${CPACK_GRADLINT_BUILD_DIRECTORY}")
endforeach()

if(CPACK_PACKAGE_DIRECTORY STREQUAL CPACK_GRADLINT_SCRATCH_DIRECTORY)
  foreach(package IN LISTS CPACK_PACKAGE_FILES)
    file(COPY "${package}" DESTINATION "${CPACK_GRADLINT_BUILD_DIRECTORY}")
    get_filename_component(name "${package}" NAME)
    message(STATUS "Package ${CPACK_GRADLINT_BUILD_DIRECTORY}/${name}")
  endforeach()
endif()
