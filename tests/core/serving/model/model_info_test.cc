// The one answer every front end gives a request for a version that is not serving
// (VersionMismatchError): Triton's words, by whether the version asked for is a number.
#include "core/serving/model/model_info.h"

#include "gtest/gtest.h"

namespace neuronserve {
namespace model_info_test {

TEST(VersionMismatchErrorTest, ANumberIsAVersionThatIsNotServing) {
  const absl::Status status = VersionMismatchError("simple", "7", "3");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_EQ(status.message(),
            "Request for unknown model: 'simple' version 7 is not found (version '3' is serving)");
}

TEST(VersionMismatchErrorTest, AnyOtherStringIsAVersionStringTritonCannotRead) {
  const absl::Status status = VersionMismatchError("simple_int8", "wrong_specification", "");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(),
            "failed to get model version from specified version string 'wrong_specification': "
            "it is neither a version number nor the label of the version of model 'simple_int8' "
            "that serves (version 1 (no label) is serving)");
  // A label of a version that is no longer serving is such a string too: the daemon keeps no
  // labels of replaced versions. The serving one is named with its number.
  const absl::Status replaced = VersionMismatchError("m", "2024-05-01", "2024-06-01");
  EXPECT_EQ(replaced.code(), absl::StatusCode::kInvalidArgument) << replaced;
  EXPECT_EQ(replaced.message(),
            "failed to get model version from specified version string '2024-05-01': it is "
            "neither a version number nor the label of the version of model 'm' that serves "
            "(version '2024-06-01' (number 6367888885634887) is serving)");
}

}  // namespace model_info_test
}  // namespace neuronserve
