# Installs this build into a scratch prefix, configures and builds tests/client/find_package
# against it with find_package(neuronserve), and runs the program. Any failing step fails.
#   -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR -DGENERATOR -DCXX_FLAGS
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok\n${out}")
endfunction()
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run("configure the user project" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
run("build the user project" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("run it" ${WORK_DIR}/build/hello_neuronserve 127.0.0.1:1)
