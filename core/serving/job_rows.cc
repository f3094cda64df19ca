#include "core/serving/job_rows.h"

#include <utility>

namespace neuronserve {

void AnswerRows(const JobRows& part, absl::Status status, const ExecutionTiming& timing) {
  InferenceJob* job = part.job;
  if (job->row_ranges == nullptr) {
    job->Complete(std::move(status), timing);
    return;
  }
  absl::Status outcome;
  if (job->row_ranges->End(part.rows, status, &outcome)) job->Complete(std::move(outcome), timing);
}

absl::Span<uint8_t> OutputOf(const JobRows& part, size_t index) {
  InferenceJob* job = part.job;
  return job->row_ranges == nullptr ? job->Output(index) : job->row_ranges->Output(*job, index);
}

}  // namespace neuronserve
