# cmake -DCOMMAND="prog;arg;..." -DOUTPUT=FILE -P WriteCommandOutput.cmake: runs COMMAND and
# writes its standard output to FILE (the generated man page and completion script).
get_filename_component(folder "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${folder}")
execute_process(COMMAND ${COMMAND} OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${COMMAND} failed (${result})")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
