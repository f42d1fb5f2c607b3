# `cmake --build build --target wheel`: build/dist/torch_gradlint-VERSION-py3-none-manylinux_*.whl,
# the distribution torch-gradlint (PyPI's `gradlint` is another project): the gradlint executable for Python checking with the libraries it needs outside the C/C++ runtime
# (packaging/wheel/make_wheel.py says how). `pip install .` makes the same wheel through
# packaging/wheel/build_backend.py. The C++ checker stays a separate package (gradlint-cpp).

# A gradlint built without the C++ checker says "built without it" for C++ files. A build made
# only for the wheel (the build backend's) leaves the checker out to skip LLVM, yet its gradlint
# must behave as the packaged one: the module is a separate install ("install gradlint-cpp").
option(GRADLINT_CPP_MODULE_SEPARATE
       "gradlint opens a C++ module installed separately, also when this build has none" OFF)
if(GRADLINT_CPP_MODULE_SEPARATE AND NOT GRADLINT_WITH_CPP)
  target_compile_definitions(gradlint_core PRIVATE GRADLINT_WITH_CPP=1)
endif()

find_package(Python3 COMPONENTS Interpreter)
find_program(GRADLINT_PATCHELF patchelf)
set(gradlint_wheel_stamp "${CMAKE_BINARY_DIR}/dist/.wheel-made")
# The wheel's name holds the glibc that its files need, which make_wheel.py reads from them: a
# stamp stands for it.
add_custom_command(
  OUTPUT "${gradlint_wheel_stamp}"
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_SOURCE_DIR}/packaging/wheel/make_wheel.py"
          --binary "$<TARGET_FILE:gradlint>" --version "${PROJECT_VERSION}"
          --libgit2 "${LIBGIT2_LIBRARY}"
          --patchelf "$<IF:$<BOOL:${GRADLINT_PATCHELF}>,${GRADLINT_PATCHELF},patchelf>"
          --strip "${CMAKE_STRIP}"
          --objdump "$<IF:$<BOOL:${CMAKE_OBJDUMP}>,${CMAKE_OBJDUMP},objdump>"
          --output-dir "${CMAKE_BINARY_DIR}/dist"
  COMMAND "${CMAKE_COMMAND}" -E touch "${gradlint_wheel_stamp}"
  DEPENDS gradlint "${CMAKE_SOURCE_DIR}/packaging/wheel/make_wheel.py"
          "${CMAKE_SOURCE_DIR}/packaging/wheel/torch_gradlint/__init__.py"
          "${CMAKE_SOURCE_DIR}/packaging/wheel/torch_gradlint/__main__.py"
          "${CMAKE_SOURCE_DIR}/packaging/wheel/torch_gradlint/pre_commit.py"
  COMMENT "Making the wheel in ${CMAKE_BINARY_DIR}/dist" VERBATIM)
# The tests install the wheel (test/wheel, test/precommit, test/action): a build with tests
# makes it too, except under a sanitizer, whose runtime no wheel should carry.
if(GRADLINT_BUILD_TESTS AND NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  set(gradlint_wheel_all ALL)
else()
  set(gradlint_wheel_all "")
endif()
add_custom_target(wheel ${gradlint_wheel_all} DEPENDS "${gradlint_wheel_stamp}")
