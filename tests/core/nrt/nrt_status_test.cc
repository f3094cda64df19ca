#include "core/nrt/nrt_status.h"

#include <set>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(NrtStatusTest, EveryKnownStatusHasANameAndAnErrorCode) {
  std::set<absl::string_view> names;
  for (NRT_STATUS status : AllKnownNrtStatuses()) {
    const std::string_view std_name = NrtStatusName(status);
    const absl::string_view name(std_name.data(), std_name.size());
    EXPECT_FALSE(name.empty()) << static_cast<int>(status);
    EXPECT_TRUE(absl::StartsWith(name, "NRT_")) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    if (status == NRT_SUCCESS) {
      EXPECT_EQ(NrtStatusCode(status), absl::StatusCode::kOk);
    } else {
      EXPECT_NE(NrtStatusCode(status), absl::StatusCode::kOk) << name;
      EXPECT_NE(NrtStatusCode(status), absl::StatusCode::kUnknown) << name;
    }
  }
  // Every value of the runtime 2.30 headers (nrt_status.h), 28 in all.
  EXPECT_EQ(AllKnownNrtStatuses().size(), 28u);
}

TEST(NrtStatusTest, MapsTheStatusesCallersActOn) {
  EXPECT_EQ(NrtStatusCode(NRT_INVALID), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NrtStatusCode(NRT_RESOURCE), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(NrtStatusCode(NRT_LOAD_NOT_ENOUGH_NC), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(NrtStatusCode(NRT_TIMEOUT), absl::StatusCode::kUnavailable);
  EXPECT_EQ(NrtStatusCode(NRT_HW_ERROR), absl::StatusCode::kUnavailable);
  EXPECT_EQ(NrtStatusCode(NRT_EXEC_COMPLETED_WITH_ERR), absl::StatusCode::kInternal);
  EXPECT_EQ(NrtStatusCode(NRT_EXEC_NC_BUSY), absl::StatusCode::kUnavailable);
  EXPECT_EQ(NrtStatusCode(NRT_EXEC_BAD_INPUT), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NrtStatusCode(NRT_UNINITIALIZED), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(NrtStatusCode(NRT_QUEUE_FULL), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(NrtStatusCode(NRT_EXEC_HW_ERR_HBM_UE), absl::StatusCode::kUnavailable);
}

TEST(NrtStatusTest, ErrorNamesOperationStatusAndNumber) {
  absl::Status error = NrtError("nrt_load", NRT_INVALID, "start core 0, 12 bytes");
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(), "nrt_load: NRT_INVALID (2): start core 0, 12 bytes");
  ASSERT_TRUE(NrtStatusOf(error).has_value());
  EXPECT_EQ(*NrtStatusOf(error), NRT_INVALID);
}

TEST(NrtStatusTest, SuccessIsOk) { EXPECT_TRUE(NrtError("nrt_execute", NRT_SUCCESS).ok()); }

TEST(NrtStatusTest, UnknownValueStillAnErrorThatPrintsTheNumber) {
  const auto unknown = static_cast<NRT_STATUS>(4711);
  EXPECT_TRUE(NrtStatusName(unknown).empty());
  absl::Status error = NrtError("nrt_execute", unknown);
  EXPECT_EQ(error.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(error.message(), "nrt_execute: unknown NRT_STATUS (4711)");
  EXPECT_EQ(*NrtStatusOf(error), unknown);
}

TEST(NrtStatusTest, OtherErrorsCarryNoNrtStatus) {
  EXPECT_FALSE(NrtStatusOf(absl::InternalError("x")).has_value());
}

}  // namespace
}  // namespace neuronserve
