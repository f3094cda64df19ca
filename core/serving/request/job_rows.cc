#include "core/serving/request/job_rows.h"

#include <utility>

namespace neuronserve {

void AnswerRows(const JobRows& part, absl::Status status, const ExecutionTiming& timing) {
  absl::Status outcome;
  if (EndRows(part, std::move(status), &outcome)) part.job->Complete(std::move(outcome), timing);
}

bool EndRows(const JobRows& part, absl::Status status, absl::Status* outcome) {
  RowRanges* ranges = part.job->row_ranges.get();
  if (ranges == nullptr) {
    *outcome = std::move(status);
    return true;
  }
  return ranges->End(part.rows, status, outcome);
}

absl::Span<uint8_t> OutputOf(const JobRows& part, size_t index) {
  InferenceJob* job = part.job;
  if (job->row_ranges == nullptr) return job->Output(index);
  return job->row_ranges->Output(index, [job, index] { return job->Output(index); });
}

}  // namespace neuronserve
