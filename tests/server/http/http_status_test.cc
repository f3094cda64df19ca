// HttpStatusOf's table and the one JSON error body (server/http/http_status.h).
#include "server/http/http_status.h"

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(HttpStatusTest, EachCodeHasTheStatusOfTheMapping) {
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kOk), 200);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kOutOfRange), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kAlreadyExists), 409);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kAborted), 409);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kResourceExhausted), 429);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kCancelled), 499);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnimplemented), 501);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kInternal), 500);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kDataLoss), 500);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnknown), 500);
}

TEST(HttpStatusTest, TheErrorBodyIsOneJsonStringWhateverTheMessageHolds) {
  const HttpResponse response =
      HttpErrorResponse(absl::NotFoundError("model 'a\"b' not found\n\xff"));
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(response.body, "{\"error\":\"model 'a\\\"b' not found\\n\\ufffd\"}");
  EXPECT_TRUE(response.more_body.empty());
}

TEST(HttpStatusTest, AnUnavailableAnswerSaysWhenToRetryAndNoOtherDoes) {
  const HttpResponse full = HttpErrorResponse(absl::UnavailableError("queue is full"));
  EXPECT_EQ(full.status, 503);
  ASSERT_EQ(full.headers.size(), 1u);
  EXPECT_EQ(full.headers[0].first, "Retry-After");
  EXPECT_EQ(full.headers[0].second, "1");
  EXPECT_TRUE(HttpErrorResponse(absl::InvalidArgumentError("bad")).headers.empty());
  EXPECT_TRUE(HttpErrorResponse(absl::ResourceExhaustedError("too big")).headers.empty());
}

}  // namespace
}  // namespace neuronserve
