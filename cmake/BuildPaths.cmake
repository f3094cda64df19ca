# neuron_serve_build_paths(<target> <NAME> <path> [<NAME> <path> ...]): defines each NAME in
# <target>'s sources as the C string of <path> (a file or folder of the build or source tree; a
# generator expression such as $<TARGET_FILE:nrtsim> is fine), written relative to <target>'s
# own folder and resolved when the test runs (tests/support/build_paths.h says why: ccache
# shares objects between clones only when no definition holds a path inside the clone). Links
# neuronserve_build_paths, the header's target. The path is resolved from the running
# executable's folder, so a library <target> serves only executables built in its own folder
# (tests/fuzz's sim_serving and its fuzz targets).
function(neuron_serve_build_paths target)
  set(arguments ${ARGN})
  list(LENGTH arguments count)
  math(EXPR odd "${count} % 2")
  if(count EQUAL 0 OR odd)
    message(FATAL_ERROR "neuron_serve_build_paths(${target}): NAME path pairs expected")
  endif()
  set(definitions "")
  while(arguments)
    list(POP_FRONT arguments name path)
    list(APPEND definitions
      "${name}=::neuronserve::testing::BuildPath(\"$<PATH:RELATIVE_PATH,${path},$<TARGET_FILE_DIR:${target}>>\")")
  endwhile()
  target_compile_definitions(${target} PRIVATE ${definitions})
  target_link_libraries(${target} PRIVATE neuronserve_build_paths)
endfunction()
