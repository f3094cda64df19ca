# bench.smoke: runs neuron_serve_bench briefly and fails unless it exits 0 and printed its
# tables (a header and at least one row each). ctest's PASS_REGULAR_EXPRESSION alone would
# ignore the exit code, hence this script. Variables: BENCH (the binary), ARGS (its flags),
# RSS_ARGS (the flags of a second run, the RSS mode, checked the same way), CHURN_ARGS (a third,
# the version-churn mode).
execute_process(
  COMMAND ${BENCH} ${ARGS}
  RESULT_VARIABLE exit_code
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors)
message("${output}")
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "neuron_serve_bench exited with '${exit_code}'; stderr:\n${errors}")
endif()
# A comparison row: "4 KiB    raw       1 | <echo> | <hand-off echo> | <infer> | <v2> | <ratios>".
if(NOT output MATCHES "== Infer [^\n]* vs bare gRPC echo[^\n]*\n[^\n]*infer/hand\n4 KiB +raw +1 \\| +[0-9.]+ ")
  message(FATAL_ERROR "no comparison table in the output")
endif()
# The same row's hand-off echo, Infer and ModelInfer columns and the four ratios.
if(NOT output MATCHES "v2 req/s +p50 ms +p99 ms \\| +v2/echo +infer/echo +hand/echo +infer/hand\n4 KiB +raw +1 \\| [^\n|]+\\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| [^\n|]+\\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n")
  message(FATAL_ERROR "no hand-off echo or ModelInfer (v2) columns in the comparison table")
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
# A REST-vs-HTTP-echo row: "4 KiB        1 | <echo numbers> | <REST numbers> | <ratio>".
if(NOT output MATCHES "== REST binary [^\n]* vs HTTP/1.1 echo[^\n]*\n[^\n]*rest/http-echo\n4 KiB +1 \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+\n")
  message(FATAL_ERROR "no REST/HTTP-echo table in the output")
endif()
# A shared-memory row: "4 KiB        1 | <raw numbers> | <shm numbers> | <shm/raw>".
if(NOT output MATCHES "== Shared memory[^\n]*\n[^\n]*shm/raw\n4 KiB +1 \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+ +[0-9.]+ +[0-9.]+ \\| +[0-9.]+\n")
  message(FATAL_ERROR "no shared-memory table in the output")
endif()

if(DEFINED RSS_ARGS)
  execute_process(
    COMMAND ${BENCH} ${RSS_ARGS}
    RESULT_VARIABLE exit_code
    OUTPUT_VARIABLE output
    ERROR_VARIABLE errors)
  message("${output}")
  if(NOT exit_code EQUAL 0)
    message(FATAL_ERROR "neuron_serve_bench (RSS run) exited with '${exit_code}'; stderr:\n${errors}")
  endif()
  # Progress lines, then the summary with all three figures and the target's verdict.
  if(NOT output MATCHES "== RSS run[^\n]*\n(warm-up +[0-9]+ of [0-9]+ requests +[0-9.]+ req/s +RSS [0-9.]+ MiB\n)+(run +[0-9]+ of [0-9]+ requests [^\n]*\n)+rss summary[^\n]*\n +requests: [0-9]+ after [0-9]+ of warm-up, 0 failed[^\n]*\n +RSS after warm-up [0-9.]+ MiB, final [0-9.]+ MiB, max sampled [0-9.]+ MiB, peak \\(VmHWM\\) [0-9.]+ MiB\n +growth after warm-up within 16 MiB: final [-+][0-9.]+ MiB \\((met|MISSED)\\)")
    message(FATAL_ERROR "no RSS run summary in the output")
  endif()
endif()

if(DEFINED CHURN_ARGS)
  execute_process(
    COMMAND ${BENCH} ${CHURN_ARGS}
    RESULT_VARIABLE exit_code
    OUTPUT_VARIABLE output
    ERROR_VARIABLE errors)
  message("${output}")
  if(NOT exit_code EQUAL 0)
    message(FATAL_ERROR "neuron_serve_bench (churn run) exited with '${exit_code}'; stderr:\n${errors}")
  endif()
  if(NOT output MATCHES "== version churn[^\n]*\nafter warm-up +reloads +[0-9]+ +RSS +[0-9.]+ MiB +/metrics +[0-9]+ bytes +versions shown [0-9]+\n(progress[^\n]*\n)*at the end +reloads +[0-9]+ +RSS +[0-9.]+ MiB +/metrics +[0-9]+ bytes +versions shown [0-9]+\nmost versions one scrape showed: [0-9]+")
    message(FATAL_ERROR "no churn run summary in the output")
  endif()
endif()
