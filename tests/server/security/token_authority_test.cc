// server/security/token_authority: the decisions (codes and messages), scopes, reloading (a bad
// file keeps the previous tokens), the file watcher, and Authorize racing reloads (run under
// ThreadSanitizer in the CORE_ONLY configuration).
#include "server/security/token_authority.h"

#include <stdio.h>

#include <atomic>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"
#include "util/file_watcher.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kInferToken[] = "infer-token-0123456789";
constexpr char kAdminToken[] = "admin-token-0123456789";
constexpr char kOtherToken[] = "other-token-0123456789";

std::string Bearer(const std::string& token) { return "Bearer " + token; }

// Replaces `path` atomically (write beside it, rename), as an operator or Kubernetes would.
void Replace(const testing::TempDir& dir, const std::string& name, const std::string& contents) {
  const std::string temporary = dir.Write(name + ".new", contents);
  ASSERT_EQ(rename(temporary.c_str(), dir.Join(name).c_str()), 0);
}

class TokenAuthorityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    infer_file_ = dir_.Write("infer.tokens", std::string("reader:") + kInferToken + "\n");
    admin_file_ = dir_.Write("admin.tokens", std::string("operator:") + kAdminToken + "\n");
    absl::StatusOr<std::unique_ptr<TokenAuthority>> authority =
        TokenAuthority::Load(infer_file_, admin_file_);
    ASSERT_TRUE(authority.ok()) << authority.status();
    authority_ = *std::move(authority);
  }

  testing::TempDir dir_;
  std::string infer_file_;
  std::string admin_file_;
  std::unique_ptr<TokenAuthority> authority_;
};

TEST(TokenAuthorityWithoutFilesTest, AllowsEverything) {
  absl::StatusOr<std::unique_ptr<TokenAuthority>> authority = TokenAuthority::Load("", "");
  ASSERT_TRUE(authority.ok()) << authority.status();
  EXPECT_FALSE((*authority)->enabled());
  EXPECT_TRUE((*authority)->Authorize("", Scope::kAdmin, "LoadModel").ok());
  EXPECT_TRUE((*authority)->Authorize(Bearer(kOtherToken), Scope::kInfer, "Infer").ok());
  EXPECT_TRUE((*authority)->Reload().ok());
}

TEST_F(TokenAuthorityTest, NoTokenOrNotABearerOneIsUnauthenticated) {
  EXPECT_TRUE(authority_->enabled());
  for (const std::string& value :
       {std::string(), std::string("Bearer "), std::string("Basic ") + kInferToken,
        std::string(kInferToken), std::string("Bearer") + kInferToken}) {
    const AuthDecision decision = authority_->Authorize(value, Scope::kInfer, "Infer");
    EXPECT_EQ(decision.code, absl::StatusCode::kUnauthenticated) << value;
    EXPECT_EQ(decision.message,
              "Infer needs a bearer token with the infer scope (metadata 'authorization: Bearer "
              "<token>')")
        << value;
    EXPECT_TRUE(decision.label.empty());
  }
}

TEST_F(TokenAuthorityTest, AnUnknownTokenIsUnauthenticated) {
  const AuthDecision decision = authority_->Authorize(Bearer(kOtherToken), Scope::kInfer, "Infer");
  EXPECT_EQ(decision.code, absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(decision.message, "Infer: unknown token");
  EXPECT_TRUE(decision.label.empty());
}

TEST_F(TokenAuthorityTest, AnInferTokenMayInferButNotLoad) {
  const AuthDecision infer = authority_->Authorize(Bearer(kInferToken), Scope::kInfer, "Infer");
  EXPECT_TRUE(infer.ok()) << infer.message;
  EXPECT_EQ(infer.label, "reader");
  // The scheme is case-insensitive.
  EXPECT_TRUE(
      authority_->Authorize("bearer " + std::string(kInferToken), Scope::kInfer, "Infer").ok());

  const AuthDecision load = authority_->Authorize(Bearer(kInferToken), Scope::kAdmin, "LoadModel");
  EXPECT_EQ(load.code, absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(load.message,
            "LoadModel needs a token with the admin scope; token 'reader' has the infer scope");
  EXPECT_EQ(load.label, "reader");
  EXPECT_THAT(load.message, Not(HasSubstr(kInferToken)));
}

TEST_F(TokenAuthorityTest, AnAdminTokenMayDoBoth) {
  for (const Scope scope : {Scope::kInfer, Scope::kAdmin}) {
    const AuthDecision decision = authority_->Authorize(Bearer(kAdminToken), scope, "Any");
    EXPECT_TRUE(decision.ok()) << decision.message;
    EXPECT_EQ(decision.label, "operator");
  }
}

TEST_F(TokenAuthorityTest, HealthNeedsNoToken) {
  EXPECT_TRUE(authority_->Authorize("", Scope::kNone, "Check").ok());
}

TEST_F(TokenAuthorityTest, OnlyAnAdminFileStillClosesTheInferRpcs) {
  absl::StatusOr<std::unique_ptr<TokenAuthority>> authority = TokenAuthority::Load("", admin_file_);
  ASSERT_TRUE(authority.ok()) << authority.status();
  EXPECT_EQ((*authority)->Authorize("", Scope::kInfer, "Infer").code,
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ((*authority)->Authorize(Bearer(kInferToken), Scope::kInfer, "Infer").code,
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE((*authority)->Authorize(Bearer(kAdminToken), Scope::kInfer, "Infer").ok());
}

TEST_F(TokenAuthorityTest, ABadFileAtLoadNamesTheFileAndLine) {
  const std::string bad = dir_.Write("bad.tokens", "# ok\nops:tooshortsecret\n");
  absl::StatusOr<std::unique_ptr<TokenAuthority>> authority = TokenAuthority::Load(bad, "");
  ASSERT_FALSE(authority.ok());
  EXPECT_THAT(std::string(authority.status().message()), HasSubstr(bad + ":2: "));
  EXPECT_THAT(std::string(authority.status().message()), Not(HasSubstr("tooshortsecret")));

  authority = TokenAuthority::Load(infer_file_, dir_.Join("missing.tokens"));
  ASSERT_FALSE(authority.ok());
  EXPECT_THAT(std::string(authority.status().message()), HasSubstr(dir_.Join("missing.tokens")));
}

TEST_F(TokenAuthorityTest, ReloadTakesTheNewTokensAndABadFileKeepsThePreviousOnes) {
  Replace(dir_, "infer.tokens", std::string("reader2:") + kOtherToken + "\n");
  ASSERT_TRUE(authority_->Reload().ok());
  EXPECT_EQ(authority_->Authorize(Bearer(kInferToken), Scope::kInfer, "Infer").code,
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authority_->Authorize(Bearer(kOtherToken), Scope::kInfer, "Infer").label, "reader2");

  // A broken infer file: its previous tokens stay; the admin file is still re-read.
  Replace(dir_, "infer.tokens", "reader3:short\n");
  Replace(dir_, "admin.tokens", std::string("operator2:") + kAdminToken + "\n");
  const absl::Status reloaded = authority_->Reload();
  EXPECT_EQ(reloaded.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(reloaded.message()), HasSubstr(infer_file_ + ":1: "));
  EXPECT_THAT(std::string(reloaded.message()), HasSubstr("keeping the previous tokens"));
  EXPECT_EQ(authority_->Authorize(Bearer(kOtherToken), Scope::kInfer, "Infer").label, "reader2");
  EXPECT_EQ(authority_->Authorize(Bearer(kAdminToken), Scope::kAdmin, "LoadModel").label,
            "operator2");

  // A file that disappears also keeps its tokens.
  ASSERT_EQ(unlink(infer_file_.c_str()), 0);
  EXPECT_FALSE(authority_->Reload().ok());
  EXPECT_TRUE(authority_->Authorize(Bearer(kOtherToken), Scope::kInfer, "Infer").ok());
}

TEST_F(TokenAuthorityTest, WatchReloadsWhenAFileChanges) {
  FileWatcher watcher(absl::Milliseconds(20));
  std::atomic<int> reports{0};
  authority_->Watch(watcher, [&](const absl::Status& status) {
    if (status.ok()) reports.fetch_add(1);
  });
  Replace(dir_, "admin.tokens", std::string("operator:") + kOtherToken + "\n");
  // The new tokens are in use before the watcher's callback reports the reload: wait for both.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while ((!authority_->Authorize(Bearer(kOtherToken), Scope::kAdmin, "LoadModel").ok() ||
          reports.load() < 1) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(authority_->Authorize(Bearer(kOtherToken), Scope::kAdmin, "LoadModel").ok());
  EXPECT_EQ(authority_->Authorize(Bearer(kAdminToken), Scope::kAdmin, "LoadModel").code,
            absl::StatusCode::kUnauthenticated);
  EXPECT_GE(reports.load(), 1);

  // ReloadAll (SIGHUP) re-reads without a change, and reports.
  const int before = reports.load();
  watcher.ReloadAll();
  EXPECT_GT(reports.load(), before);
}

TEST_F(TokenAuthorityTest, AuthorizeRacesReloadsSafely) {
  // The infer token stays in every version of the file; the admin file alternates.
  std::atomic<bool> stop{false};
  std::atomic<int> refused{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 3; ++i) {
    callers.emplace_back([&] {
      while (!stop.load()) {
        const AuthDecision decision =
            authority_->Authorize(Bearer(kInferToken), Scope::kInfer, "Infer");
        if (!decision.ok() || decision.label != "reader") refused.fetch_add(1);
        authority_->Authorize(Bearer(kOtherToken), Scope::kAdmin, "LoadModel");
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    Replace(dir_, "admin.tokens",
            std::string("operator:") + (round % 2 == 0 ? kOtherToken : kAdminToken) + "\n");
    ASSERT_TRUE(authority_->Reload().ok());
  }
  stop.store(true);
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(refused.load(), 0);
  EXPECT_TRUE(authority_->Authorize(Bearer(kAdminToken), Scope::kAdmin, "LoadModel").ok());
}

}  // namespace
}  // namespace neuronserve
