#include "core/serving/request/row_ranges.h"

namespace neuronserve {

bool RowRanges::End(uint32_t rows, const absl::Status& status, absl::Status* outcome) {
  MutexLock lock(&mutex_);
  if (pending_rows_ == 0) return false;  // every row ended already: the request is answered
  if (!status.ok() && error_code_ == absl::StatusCode::kOk) {
    error_code_ = status.code();
    error_message_ = std::string(status.message());
  }
  pending_rows_ = rows >= pending_rows_ ? 0 : pending_rows_ - rows;
  if (pending_rows_ != 0) return false;
  *outcome = absl::Status(error_code_, error_message_);
  return true;
}

bool RowRanges::failed() const {
  MutexLock lock(&mutex_);
  return error_code_ != absl::StatusCode::kOk;
}

absl::Status RowRanges::first_error() const {
  MutexLock lock(&mutex_);
  return absl::Status(error_code_, error_message_);
}

absl::Span<uint8_t> RowRanges::Output(size_t index,
                                      absl::FunctionRef<absl::Span<uint8_t>()> ask) {
  MutexLock lock(&mutex_);
  if (index >= outputs_.size()) outputs_.resize(index + 1);
  if (!outputs_[index].has_value()) outputs_[index] = ask();
  return *outputs_[index];
}

}  // namespace neuronserve
