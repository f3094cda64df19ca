#include "core/nrt/nrt_library.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/build_paths.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(NrtLibraryTest, MissingLibraryIsNotFoundNamingThePath) {
  auto library = NrtLibrary::Open("/nonexistent/libnrt-missing.so");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(library.status().message(), HasSubstr("/nonexistent/libnrt-missing.so"));
  EXPECT_THAT(library.status().message(), HasSubstr("cannot load the Neuron runtime library"));
}

TEST(NrtLibraryTest, DefaultNamesAreTriedInOrderAndTheHintNamesTheFlag) {
  // No libnrt on this machine (the tests run without Neuron hardware).
  auto library = NrtLibrary::Open("");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(library.status().message(), HasSubstr("tried libnrt.so.1, libnrt.so"));
  EXPECT_THAT(library.status().message(), HasSubstr("--nrt-library"));
}

TEST(NrtLibraryTest, LibraryWithoutARequiredSymbolNamesIt) {
  auto library = NrtLibrary::Open(STUB_WITHOUT_EXECUTE_PATH);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(library.status().message(), HasSubstr("required symbol nrt_execute"));
  EXPECT_THAT(library.status().message(), HasSubstr(STUB_WITHOUT_EXECUTE_PATH));
  // The stub exports only the newer *_vnc_* count names; those satisfy the binding.
  EXPECT_THAT(library.status().message(), ::testing::Not(HasSubstr("nc_count")));
}

TEST(NrtLibraryTest, NonLibraryFileIsNotFoundWithTheLoaderReason) {
  auto library = NrtLibrary::Open(STUB_NOT_A_LIBRARY_PATH);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(library.status().message(), HasSubstr(STUB_NOT_A_LIBRARY_PATH));
}

TEST(NrtLibraryTest, SimulatorResolvesEveryFunctionIncludingOptionalOnes) {
  auto library = NrtLibrary::Open(testing::SimLibraryPath());
  ASSERT_TRUE(library.ok()) << library.status();
  const NrtApi& api = (*library)->api();
  EXPECT_NE(api.init, nullptr);
  EXPECT_NE(api.execute, nullptr);
  EXPECT_NE(api.get_total_nc_count, nullptr);
  EXPECT_NE(api.get_visible_nc_count, nullptr);
  EXPECT_NE(api.get_vnc_memory_stats, nullptr);
  EXPECT_NE(api.get_status_as_str, nullptr);
  EXPECT_EQ((*library)->path(), testing::SimLibraryPath());
}

}  // namespace
}  // namespace neuronserve
