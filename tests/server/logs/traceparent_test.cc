// LoggableTraceparent: what of a client's W3C traceparent the access log may carry.
#include "server/logs/traceparent.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

constexpr char kValid[] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

TEST(TraceparentTest, AVersion00ValueIsLoggedAsItCame) {
  EXPECT_EQ(LoggableTraceparent(kValid), kValid);
  EXPECT_EQ(LoggableTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"),
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00");
}

TEST(TraceparentTest, ALaterVersionKeepsVersion00sFieldsOnly) {
  EXPECT_EQ(LoggableTraceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra"),
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  EXPECT_EQ(LoggableTraceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  // A later version's extra fields start with '-'.
  EXPECT_EQ(LoggableTraceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x"), "");
}

TEST(TraceparentTest, AnythingElseIsNotLogged) {
  const std::string valid = kValid;
  for (const std::string& bad : std::vector<std::string>{
           std::string(), valid.substr(0, 54),                         // short
           valid + "-",                                                // version 00 is exactly 55
           "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // version ff
           "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",  // uppercase
           "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // zero trace id
           "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  // zero parent id
           "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // separator
           "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g",  // flags
           "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333 -01",  // a space in the log
           "0x-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // version
       }) {
    EXPECT_EQ(LoggableTraceparent(bad), "") << bad;
  }
}

}  // namespace
}  // namespace neuronserve
