# CPACK_INSTALL_SCRIPTS (cmake/Packaging.cmake): runs in cpack before the components are
# installed into the staging folder. Keeps the build folder's install manifests, which those
# installs overwrite, for cmake/CPackPostBuild.cmake to put back.
set(backup "${CPACK_TOPLEVEL_DIRECTORY}/install-manifests")
file(REMOVE_RECURSE "${backup}")
file(MAKE_DIRECTORY "${backup}")
file(GLOB manifests "${CPACK_GRADLINT_BUILD_DIRECTORY}/install_manifest_*.txt")
foreach(manifest IN LISTS manifests)
  file(COPY "${manifest}" DESTINATION "${backup}")
endforeach()
# Packages of an earlier run in the scratch folder are not this run's.
file(GLOB stale "${CPACK_GRADLINT_SCRATCH_DIRECTORY}/*.deb")
if(stale)
  file(REMOVE ${stale})
endif()
