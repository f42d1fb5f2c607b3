# libFuzzer builds (GRADLINT_BUILD_FUZZERS, the `fuzz` preset): every target of the project is
# compiled with coverage instrumentation and AddressSanitizer + UndefinedBehaviorSanitizer, so the
# fuzzers in test/fuzz see into our code and the grammar; only they link libFuzzer's main.
# Included before any target is defined.
option(GRADLINT_BUILD_FUZZERS "Build the libFuzzer targets in test/fuzz (needs Clang)" OFF)
if(GRADLINT_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GRADLINT_BUILD_FUZZERS needs Clang (the `fuzz` preset uses clang++-19; "
                        "Debian: clang-19 libclang-rt-19-dev)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
