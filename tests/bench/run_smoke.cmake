# bench.smoke: runs neuron_serve_bench briefly and fails unless it exits 0 and printed its
# tables (a header and at least one row each). ctest's PASS_REGULAR_EXPRESSION alone would
# ignore the exit code, hence this script. Variables: BENCH (the binary), ARGS (its flags).
execute_process(
  COMMAND ${BENCH} ${ARGS}
  RESULT_VARIABLE exit_code
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors)
message("${output}")
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "neuron_serve_bench exited with '${exit_code}'; stderr:\n${errors}")
endif()
# A comparison row: "4 KiB    raw       1 | <echo numbers> | <infer numbers> | <ratio>".
if(NOT output MATCHES "== Infer [^\n]* vs bare gRPC echo[^\n]*\n[^\n]*infer/echo\n4 KiB +raw +1 \\| +[0-9.]+ ")
  message(FATAL_ERROR "no comparison table in the output")
endif()
# A scaling row: "       1     2 | <numbers> | <ideal> | <ratio>".
if(NOT output MATCHES "== Scaling[^\n]*\n[^\n]*of ideal\n +1 +2 \\| +[0-9.]+ ")
  message(FATAL_ERROR "no scaling table in the output")
endif()
# Pipelining rows, depth 1 then 2: "       1     1     2 | <numbers> | <per replica> | <ratios>".
if(NOT output MATCHES "== Pipelining[^\n]*\n[^\n]*util: [^\n]*\n[^\n]*util\n +1 +1 +2 \\| +[0-9.]+ [^\n]*\n +1 +2 +2 \\| +[0-9.]+ ")
  message(FATAL_ERROR "no pipelining table in the output")
endif()
# A protocol row: "4 KiB        1 | <native numbers> | <v2 numbers> | <ratio>".
if(NOT output MATCHES "== ModelInfer \\(v2\\) vs native Infer[^\n]*\n[^\n]*v2/native\n4 KiB +1 \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+ ")
  message(FATAL_ERROR "no protocol (v2/native) table in the output")
endif()
# An HTTP row: "4 KiB        1 | <gRPC numbers> | <binary numbers> | <JSON numbers> | <ratios>".
if(NOT output MATCHES "== Batching[^\n]*\n[^\n]*p50\n +1 \\| +[0-9.]+ ")
  message(FATAL_ERROR "no batching table in the output")
endif()
if(NOT output MATCHES "== REST \\(HTTP/1.1 keep-alive\\) vs gRPC ModelInfer[^\n]*\n[^\n]*JSON/gRPC\n4 KiB +1 \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+ ")
  message(FATAL_ERROR "no REST/gRPC table in the output")
endif()
