// The pieces of neuronctl's human output: aligned tables, byte sizes, the upload progress bar,
// positional-argument checks and the exit codes errors carry.
#include <sstream>
#include <string>

#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/progress_bar.h"
#include "client/neuronctl/text_table.h"
#include "client/neuronctl/usage_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::neuronctl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TextTableTest, ColumnsAreAsWideAsTheirWidestCell) {
  TextTable table({"NAME", "STATE"});
  table.AddRow({"a-long-name", "READY"});
  table.AddRow({"b", ""});
  std::ostringstream out;
  table.Render(out);
  EXPECT_EQ(out.str(),
            "NAME         STATE\n"
            "a-long-name  READY\n"
            "b\n");
}

TEST(ModelStatusTextTest, SizesShapesAndCores) {
  EXPECT_EQ(ByteSizeText(512), "512 B");
  EXPECT_EQ(ByteSizeText(1536), "1.5 KiB");
  EXPECT_EQ(ByteSizeText(uint64_t{16} << 30), "16.0 GiB");

  v1::ModelStatus model;
  model.add_replicas()->add_cores(0);
  v1::ModelReplica* wide = model.add_replicas();
  wide->add_cores(2);
  wide->add_cores(3);
  EXPECT_EQ(ReplicaCoresText(model), "0, 2-3");
  v1::TensorInfo tensor;
  tensor.add_shape(1);
  tensor.add_shape(16);
  EXPECT_EQ(ShapeText(tensor.shape()), "[1,16]");  // the daemon's form (base/shape.h)
  EXPECT_EQ(ModelStateName(v1::MODEL_STATE_FAILED), "FAILED");
}

TEST(ProgressBarTest, RenderShowsTheFractionAndSizes) {
  const std::string half =
      ProgressBar::Render("uploading m.neff", 1 << 20, 2 << 20, absl::Seconds(1));
  EXPECT_THAT(half, HasSubstr("uploading m.neff ["));
  EXPECT_THAT(half, HasSubstr(" 50%"));
  EXPECT_THAT(half, HasSubstr("1.0 MiB / 2.0 MiB"));
  EXPECT_THAT(half, HasSubstr("1.0 MiB/s"));
  const std::string full = ProgressBar::Render("x", 10, 10, absl::Seconds(1));
  EXPECT_THAT(full, HasSubstr("100%"));
  EXPECT_THAT(full, HasSubstr("[" + std::string(30, '=') + "]"));
}

TEST(ProgressBarTest, OffATerminalOnlyTheSummaryLineIsWritten) {
  std::ostringstream err;
  ProgressBar bar(err, /*terminal=*/false, "uploading m.neff", "loading");
  bar.Update(100, 200);
  bar.Update(200, 200);
  EXPECT_EQ(err.str(), "");
  bar.Finish(/*print_summary=*/true);
  EXPECT_THAT(err.str(), HasSubstr("uploading m.neff: 200 B in "));
  EXPECT_THAT(err.str(), Not(HasSubstr("\r")));
}

TEST(ProgressBarTest, OnATerminalTheLineIsRedrawnThenErased) {
  std::ostringstream err;
  ProgressBar bar(err, /*terminal=*/true, "up", "loading on the device");
  bar.Update(200, 200);
  EXPECT_THAT(err.str(), HasSubstr("\rup ["));
  EXPECT_THAT(err.str(), HasSubstr("loading on the device..."));
  bar.Finish(/*print_summary=*/false);
  EXPECT_EQ(err.str().back(), '\r');  // erased: the cursor is back at the start of a blank line
}

TEST(PositionalArgsTest, MissingAndUnexpectedArgumentsAreUsageErrors) {
  const FlagSpec none[] = {{"x", FlagType::kBoolean, "", "", ""}};
  const std::vector<std::string> zero = {};
  const std::vector<std::string> two = {"a", "b"};
  absl::StatusOr<ParsedArgs> empty = ParseArgs(none, zero);
  absl::StatusOr<ParsedArgs> pair = ParseArgs(none, two);
  ASSERT_TRUE(empty.ok() && pair.ok());

  absl::Status missing = ExpectPositional(*empty, {"NAME"});
  EXPECT_TRUE(IsUsageError(missing));
  EXPECT_THAT(missing.message(), HasSubstr("missing NAME"));
  absl::Status extra = ExpectPositional(*pair, {"NAME"});
  EXPECT_TRUE(IsUsageError(extra));
  EXPECT_THAT(extra.message(), HasSubstr("unexpected argument 'b'"));
  EXPECT_TRUE(ExpectPositional(*pair, {"NAME"}, {"SERVICE"}).ok());
  EXPECT_TRUE(ExpectPositional(*empty, {}, {"SERVICE"}).ok());
}

TEST(ExitCodeTest, ErrorsCarryTheirExitCode) {
  EXPECT_EQ(ExitCodeOf(absl::OkStatus()), kExitSuccess);
  EXPECT_EQ(ExitCodeOf(absl::NotFoundError("x")), kExitRuntimeFailure);
  // A server's INVALID_ARGUMENT is a failed request, not a bad command line.
  EXPECT_EQ(ExitCodeOf(absl::InvalidArgumentError("x")), kExitRuntimeFailure);
  EXPECT_EQ(ExitCodeOf(UsageError("x")), kExitUsageError);
  EXPECT_EQ(ExitCodeOf(WithExitCode(absl::UnavailableError("x"), kExitNotServing)),
            kExitNotServing);
  EXPECT_TRUE(WithExitCode(absl::OkStatus(), kExitNotServing).ok());
}

}  // namespace
}  // namespace neuronserve::neuronctl
