# Packaging the way users install (included before cmake/Install.cmake, whose include(CPack)
# writes the CPack settings made here):
#   - the wheel, `cmake --build build --target wheel` (cmake/Wheel.cmake);
#   - where `(cd build && cpack -G DEB)` works: in a scratch folder, so that the build folder gets
#     the .deb files and nothing else (cmake/CPackStart.cmake, cmake/CPackPostBuild.cmake).
include(cmake/Wheel.cmake)

# CPack stages each package under <package directory>/_CPack_Packages and copies the .deb files
# there last. That folder is a scratch folder outside the build folder; the post-build script
# copies the finished packages into the build folder. `cpack -B DIR` still puts them in DIR.
if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(gradlint_tmp "$ENV{TMPDIR}")
else()
  set(gradlint_tmp /tmp)
endif()
string(SHA1 gradlint_build_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${gradlint_build_hash}" 0 12 gradlint_build_hash)
set(CPACK_PACKAGE_DIRECTORY "${gradlint_tmp}/gradlint-cpack-${gradlint_build_hash}")
set(CPACK_GRADLINT_SCRATCH_DIRECTORY "${CPACK_PACKAGE_DIRECTORY}")
set(CPACK_GRADLINT_BUILD_DIRECTORY "${CMAKE_BINARY_DIR}")
# Staging installs each component with the build folder's install scripts, which write
# install_manifest_<component>.txt there: the first script keeps the ones a real
# `cmake --install --component` wrote, the post-build script puts them back.
set(CPACK_INSTALL_SCRIPTS "${CMAKE_SOURCE_DIR}/cmake/CPackStart.cmake")
set(CPACK_POST_BUILD_SCRIPTS "${CMAKE_SOURCE_DIR}/cmake/CPackPostBuild.cmake")
