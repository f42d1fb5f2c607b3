# Checks the layering of docs/architecture.md: each folder's sources may include only from the
# folders listed for it (its own layer and those below), and no source file is longer than
# GRADLINT_MAX_SOURCE_LINES. Run by the build (target gradlint_layers, a dependency of every
# library) and by test/meta/layers.test:
#   cmake -DSOURCE_DIR=<repository root> [-DSTAMP=<file to touch on success>] -P CheckLayers.cmake
# The layers, lowest first. A folder not listed here (test/, bench/) may include anything.
cmake_policy(SET CMP0007 NEW) # lists keep empty elements
set(layer_folders
  checkers/ir checkers/catalog checkers/python checkers/cpp rules program tool)
set(allowed_checkers/ir       checkers/ir)
set(allowed_checkers/catalog  checkers/ir checkers/catalog)
# SourceText (checkers/python/source_text.h) is the source layer both frontends map lines with.
set(allowed_checkers/python   checkers/ir checkers/catalog checkers/python)
set(allowed_checkers/cpp      checkers/ir checkers/catalog checkers/python checkers/cpp)
set(allowed_rules             checkers rules)
set(allowed_program           checkers rules program)
set(allowed_tool              checkers rules program tool)
set(GRADLINT_MAX_SOURCE_LINES 1500)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckLayers.cmake needs -DSOURCE_DIR=<repository root>")
endif()

set(problems "")
foreach(folder IN LISTS layer_folders)
  file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
       "${SOURCE_DIR}/${folder}/*.cpp" "${SOURCE_DIR}/${folder}/*.h")
  foreach(source IN LISTS sources)
    # The innermost listed folder owns the file (checkers/cpp/x.cpp is checkers/cpp's).
    set(owner "")
    foreach(candidate IN LISTS layer_folders)
      string(LENGTH "${candidate}" candidate_length)
      if(source MATCHES "^${candidate}/")
        string(LENGTH "${owner}" owner_length)
        if(candidate_length GREATER owner_length)
          set(owner "${candidate}")
        endif()
      endif()
    endforeach()
    if(NOT owner STREQUAL folder)
      continue() # checked with its own folder
    endif()
    file(READ "${SOURCE_DIR}/${source}" text)
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines line_count)
    if(line_count GREATER GRADLINT_MAX_SOURCE_LINES)
      string(APPEND problems "  ${source}: ${line_count} lines; split it by concern "
                             "(at most ${GRADLINT_MAX_SOURCE_LINES})\n")
    endif()
    file(STRINGS "${SOURCE_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS includes)
      if(NOT line MATCHES "\"([^\"]+)\"")
        continue()
      endif()
      set(included "${CMAKE_MATCH_1}")
      # Only includes of our own layers are judged (not "parser.h" of a generated grammar).
      set(is_ours FALSE)
      foreach(candidate IN LISTS layer_folders)
        if(included MATCHES "^${candidate}/")
          set(is_ours TRUE)
        endif()
      endforeach()
      if(NOT is_ours)
        continue()
      endif()
      set(allowed FALSE)
      foreach(prefix IN LISTS allowed_${owner})
        if(included MATCHES "^${prefix}/")
          set(allowed TRUE)
        endif()
      endforeach()
      if(NOT allowed)
        list(JOIN allowed_${owner} ", " allowed_text)
        string(APPEND problems "  ${source} includes \"${included}\": ${owner}/ may include only "
                               "from ${allowed_text} (docs/architecture.md)\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "The layering of docs/architecture.md is broken:\n${problems}")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
