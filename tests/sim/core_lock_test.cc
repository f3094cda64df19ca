// A NeuronCore belongs to one process: nrt_init refuses cores that another live process holds
// (NRT_RESOURCE, with a line naming the cores and the holder's pid), and a holder that calls
// nrt_close, exits or is killed frees them. The other process is nrtsim_core_holder
// (core_holder.h); both share this test process's private NRTSIM_LOCK_DIR.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/sim/core_holder.h"
#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class CoreLockTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NRTSIM_CORES", "4");
  }

  // nrt_init in this process with NEURON_RT_VISIBLE_CORES=visible; returns the status and
  // sets *printed to what the simulator wrote on stderr.
  NRT_STATUS InitWith(const std::string& visible, std::string* printed) {
    SetEnv("NEURON_RT_VISIBLE_CORES", visible);
    testing::internal::CaptureStderr();
    NRT_STATUS status = api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    *printed = testing::internal::GetCapturedStderr();
    return status;
  }
};

// tests/sim_lock_dir gives this process a lock directory of its own, and the simulator uses it.
TEST_F(CoreLockTest, TheTestProcessHasAPrivateLockDirectory) {
  const char* dir = std::getenv("NRTSIM_LOCK_DIR");
  ASSERT_NE(dir, nullptr);
  const std::filesystem::path path(dir);
  EXPECT_EQ(path.filename().string().rfind("nrtsim-locks-", 0), 0u) << dir;
  EXPECT_TRUE(std::filesystem::is_directory(path)) << dir;
  std::string printed;
  ASSERT_EQ(InitWith("1-2", &printed), NRT_SUCCESS) << printed;
  EXPECT_NE(printed.find(std::string("core locks in ") + dir), std::string::npos) << printed;
  EXPECT_TRUE(std::filesystem::exists(path / "nc1.lock"));
  EXPECT_TRUE(std::filesystem::exists(path / "nc2.lock"));
}

TEST_F(CoreLockTest, OverlappingCoresAreRefusedUntilTheHolderIsKilled) {
  CoreHolder holder("0-1");
  ASSERT_TRUE(holder.WaitUntilReady()) << holder.output();

  std::string printed;
  EXPECT_EQ(InitWith("1-2", &printed), NRT_RESOURCE);
  EXPECT_NE(printed.find("nrtsim: nrt_init: NeuronCore 1 is in use by process " +
                         std::to_string(holder.pid()) + ";"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find(std::getenv("NRTSIM_LOCK_DIR")), std::string::npos) << printed;

  // kill -9 leaves no chance to clean up: the kernel releases the lock with the process.
  holder.KillAndWait();
  EXPECT_EQ(InitWith("1-2", &printed), NRT_SUCCESS) << printed;
}

TEST_F(CoreLockTest, TheSecondProcessIsRefusedAndNamesTheFirst) {
  std::string printed;
  ASSERT_EQ(InitWith("0-1", &printed), NRT_SUCCESS) << printed;

  CoreHolder refused("0-3");
  EXPECT_EQ(refused.WaitForExit(), 1) << refused.output();
  EXPECT_NE(refused.output().find("nrt_init failed: 4"), std::string::npos) << refused.output();
  EXPECT_NE(
      refused.output().find("NeuronCores 0,1 are in use by process " + std::to_string(getpid())),
      std::string::npos)
      << refused.output();

  // nrt_close releases the cores; a new nrt_init takes them again.
  api().nrt_close();
  CoreHolder after_close("0-3");
  ASSERT_TRUE(after_close.WaitUntilReady()) << after_close.output();
  after_close.KillAndWait();
  EXPECT_EQ(InitWith("0-1", &printed), NRT_SUCCESS) << printed;
  CoreHolder refused_again("1");
  EXPECT_EQ(refused_again.WaitForExit(), 1) << refused_again.output();
}

TEST_F(CoreLockTest, DisjointSetsCoexist) {
  CoreHolder low("0-1");
  ASSERT_TRUE(low.WaitUntilReady()) << low.output();
  CoreHolder high("3");
  ASSERT_TRUE(high.WaitUntilReady()) << high.output();
  std::string printed;
  EXPECT_EQ(InitWith("2", &printed), NRT_SUCCESS) << printed;
}

TEST_F(CoreLockTest, ARefusedInitTakesNothing) {
  CoreHolder holder("3");
  ASSERT_TRUE(holder.WaitUntilReady()) << holder.output();
  std::string printed;
  ASSERT_EQ(InitWith("0-3", &printed), NRT_RESOURCE) << printed;
  EXPECT_NE(printed.find("NeuronCore 3 is in use by process " + std::to_string(holder.pid())),
            std::string::npos)
      << printed;
  // All or nothing: the free cores 0..2 it locked before finding 3 busy were released.
  CoreHolder others("0-2");
  EXPECT_TRUE(others.WaitUntilReady()) << others.output();
}

TEST_F(CoreLockTest, EveryHolderIsNamed) {
  CoreHolder first("0");
  ASSERT_TRUE(first.WaitUntilReady()) << first.output();
  CoreHolder second("2-3");
  ASSERT_TRUE(second.WaitUntilReady()) << second.output();
  std::string printed;
  ASSERT_EQ(InitWith("0-3", &printed), NRT_RESOURCE) << printed;
  EXPECT_NE(printed.find("NeuronCore 0 is in use by process " + std::to_string(first.pid())),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("NeuronCores 2,3 are in use by process " + std::to_string(second.pid())),
            std::string::npos)
      << printed;
}

// Lock files are per physical core: a trn2 logical core at LNC=2 is two physical cores, and a
// process at LNC=1 holding one of them makes the logical core busy.
TEST_F(CoreLockTest, LogicalCoresLockTheirPhysicalCores) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  CoreHolder holder("3", {{"NEURON_LOGICAL_NC_CONFIG", "1"}});
  ASSERT_TRUE(holder.WaitUntilReady()) << holder.output();
  std::string printed;
  ASSERT_EQ(InitWith("1", &printed), NRT_RESOURCE) << printed;  // physical 2 and 3
  EXPECT_NE(printed.find("NeuronCore 1 (physical 3) is in use by process " +
                         std::to_string(holder.pid())),
            std::string::npos)
      << printed;
  EXPECT_EQ(InitWith("0", &printed), NRT_SUCCESS) << printed;  // physical 0 and 1
}

TEST_F(CoreLockTest, AnUnusableLockDirectoryIsAFailure) {
  const std::string private_dir = std::getenv("NRTSIM_LOCK_DIR");
  SetEnv("NRTSIM_LOCK_DIR", private_dir + "/missing/parent");
  std::string printed;
  EXPECT_EQ(InitWith("0", &printed), NRT_FAILURE);
  EXPECT_NE(printed.find("nrtsim: nrt_init: cannot create the lock directory '" + private_dir +
                         "/missing/parent'"),
            std::string::npos)
      << printed;
  SetEnv("NRTSIM_LOCK_DIR", private_dir);
  EXPECT_EQ(InitWith("0", &printed), NRT_SUCCESS) << printed;
}

}  // namespace
}  // namespace nrtsim_test
