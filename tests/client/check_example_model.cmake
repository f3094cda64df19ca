# Regenerates a shipped example model with the command its README documents and fails unless
# the bytes equal the committed file: guards the determinism of --seed and keeps the file current.
# Variables: NEURONCTL (the binary), ARGS (the sim-model arguments, a ;-list, without --out),
# GENERATED (a path in the build tree), COMMITTED.
execute_process(
  COMMAND ${NEURONCTL} sim-model ${ARGS} --out ${GENERATED}
  RESULT_VARIABLE exit_code)
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "neuronctl sim-model failed with exit code ${exit_code}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GENERATED} ${COMMITTED}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "${GENERATED} differs from ${COMMITTED}: the generator's output changed. "
                      "If that is intended, regenerate the committed file with the same command.")
endif()
