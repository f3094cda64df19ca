// JobRows: a run of one request's rows inside an execution, and AnswerRows, the one way to end
// it: the worker that executed it, and whoever completes what a closing scheduler hands back,
// answer through it, so that a request split over several executions (RowRanges) is completed
// exactly once.
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_JOB_ROWS_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_JOB_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/serving/request/inference_job.h"

namespace neuronserve {

// Rows [first_row, first_row + rows) of `job`.
struct JobRows {
  InferenceJob* job = nullptr;
  uint32_t first_row = 0;
  uint32_t rows = 0;
};

// Ends `part` with `status`. A job that runs in one execution is completed at once; a split one
// when its last rows end, with the first error any of its ranges met. The caller must not touch
// the job afterwards: its owner may have destroyed it.
void AnswerRows(const JobRows& part, absl::Status status, const ExecutionTiming& timing);

// AnswerRows without the Complete: ends `part` with `status` and returns true when that ended
// its job (a job that runs in one execution, or the last rows of a split one), with `*outcome`
// what to complete it with; the caller then completes it exactly once (as a core worker does,
// inline or through its Responder). False: other ranges of the job are still to end.
bool EndRows(const JobRows& part, absl::Status status, absl::Status* outcome);

// Where the job of `part` wants its output `index` (the whole request's rows; empty when it did
// not ask for it): from the job itself when it runs in one execution, and through its RowRanges
// when it is split, so that ranges running on several cores at once ask the job only once.
absl::Span<uint8_t> OutputOf(const JobRows& part, size_t index);

// The whole of `job`, as one part.
inline JobRows WholeJob(InferenceJob* job) { return JobRows{job, 0, job->rows}; }

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_JOB_ROWS_H_
