// A server stopped by a sanitizer has its report shown whole (tests/support/sanitizer_report.h,
// ChildProcess): what CI's log of a failing e2e test or soak must hold. Here with a child that
// writes a report as AddressSanitizer lays one out, after a log longer than a tail would keep.
#include "tests/support/sanitizer_report.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/child_process.h"

namespace neuronserve::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kReport[] =
    "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020 at pc 0x1 bp 0x2\n"
    "READ of size 8 at 0x6020 thread T7\n"
    "    #0 0x1 in neuronserve::JobWithdrawal::TakeBack job_withdrawal.cc:47\n"
    "SUMMARY: AddressSanitizer: heap-use-after-free job_withdrawal.cc:47 in TakeBack\n"
    "==4242==ABORTING\n";

TEST(SanitizerReportTest, IsTheLogFromTheLineThatOpensTheFirstReportToTheEnd) {
  const std::string log = std::string("I0101 listening on 127.0.0.1:1\n") + "a = b ==ERROR: no pid\n" +
                          "thread T7 " + kReport;
  EXPECT_EQ(SanitizerReport(log), std::string("thread T7 ") + kReport);
  EXPECT_EQ(SanitizerReport(kReport), kReport);
  const std::string leak = "ok\n==17==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak\n";
  EXPECT_EQ(SanitizerReport(leak), leak.substr(3));
  const std::string race =
      "ok\n==================\nWARNING: ThreadSanitizer: data race (pid=9)\n  Write of size 8\n";
  EXPECT_EQ(SanitizerReport(race), race.substr(22));
  EXPECT_EQ(SanitizerReport("I0101 every request answered\n==ERROR: no pid\n==x==ERROR: no"), "");
  EXPECT_EQ(SanitizerReport(""), "");
}

TEST(SanitizerReportTest, AChildStoppedByASanitizerHasItsWholeReportPrintedWhenItEnds) {
  // 20000 log lines before the report: far more than any tail a test prints.
  const std::string script = std::string(
                                 "i=0; while [ $i -lt 20000 ]; do echo \"I0101 request $i ok\" >&2;"
                                 " i=$((i+1)); done; printf '%s' '") +
                             kReport + "' >&2; exit 1";
  ::testing::internal::CaptureStderr();
  int code = 0;
  {
    ChildProcess child(ChildSpec{{"/bin/sh", "-c", script}});
    code = child.WaitForExit(absl::Seconds(60));
    EXPECT_EQ(SanitizerReport(child.Stderr()), kReport);
  }  // the destructor shows nothing more: the report was shown once, at the exit
  const std::string shown = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_THAT(shown, StartsWith("/bin/sh (pid "));
  EXPECT_THAT(shown, HasSubstr("was stopped by a sanitizer; its report:\n==4242==ERROR: "
                               "AddressSanitizer: heap-use-after-free"));
  EXPECT_THAT(shown, EndsWith("==4242==ABORTING\n\n"));
  EXPECT_THAT(shown, ::testing::Not(HasSubstr("request 19999 ok")));
}

TEST(SanitizerReportTest, AChildThatEndsCleanlyHasNothingPrinted) {
  ::testing::internal::CaptureStderr();
  {
    ChildProcess child(ChildSpec{{"/bin/sh", "-c", "echo 'I0101 done' >&2; exit 0"}});
    EXPECT_EQ(child.WaitForExit(), 0);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace neuronserve::testing
