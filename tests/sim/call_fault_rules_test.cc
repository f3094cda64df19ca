// NRTSIM_FAULTS is read at nrt_init like every NRTSIM_* variable: good rules are accepted, and a
// bad one refuses the configuration with a line naming the variable, the rule and the problem.
#include <string>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace call_fault_rules_test {

class CallFaultRulesTest : public SimTest {
 protected:
  // nrt_init with NRTSIM_FAULTS=`value` must fail with NRT_INVALID and print exactly
  // NRTSIM_FAULTS='<value>' has a bad rule "<rule>": <problem>
  void ExpectRefused(const std::string& value, const std::string& rule,
                     const std::string& problem) {
    SetEnv("NRTSIM_FAULTS", value);
    testing::internal::CaptureStderr();
    EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID) << value;
    const std::string printed = testing::internal::GetCapturedStderr();
    const std::string expected = "nrtsim: nrt_init: NRTSIM_FAULTS='" + value +
                                 "' has a bad rule \"" + rule + "\": " + problem + "\n";
    EXPECT_NE(printed.find(expected), std::string::npos)
        << "expected: " << expected << "printed: " << printed;
  }
};

TEST_F(CallFaultRulesTest, AcceptsEveryCallWithNamesNumbersAndOptions) {
  SetEnv("NRTSIM_FAULTS",
         "  nrt_load:NRT_TIMEOUT ;nrt_tensor_allocate:4:after=2:count=all:core=1;\n"
         "nrt_allocate_tensor_set:FAIL_HOST_MEM_ALLOC:count=3; nrt_add_tensor_to_tensor_set:2;;"
         "nrt_tensor_write:NRT_EXEC_HW_ERR_DMA_ABORT:core=0:after=5;nrt_tensor_read:1205\t;"
         "nrt_execute:NRT_EXEC_SW_NQ_OVERFLOW:count=18446744073709551615;");
  testing::internal::CaptureStderr();
  Init();
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find(", 7 fault rule(s) in NRTSIM_FAULTS"), std::string::npos) << printed;
}

TEST_F(CallFaultRulesTest, WhitespaceOnlyOrEmptyMeansNoRules) {
  SetEnv("NRTSIM_FAULTS", " ; \n ;");
  testing::internal::CaptureStderr();
  Init();
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed.find("fault rule"), std::string::npos) << printed;
}

TEST_F(CallFaultRulesTest, RefusesAnUnknownCall) {
  ExpectRefused("nrt_loads:NRT_TIMEOUT", "nrt_loads:NRT_TIMEOUT",
                "'nrt_loads' is not a call a rule can fail (one of nrt_load, nrt_tensor_allocate, "
                "nrt_allocate_tensor_set, nrt_add_tensor_to_tensor_set, nrt_tensor_write, "
                "nrt_tensor_read, nrt_execute)");
  // nrt_tensor_memset is a runtime call, but not one a rule can fail.
  ExpectRefused("nrt_tensor_memset:NRT_FAILURE", "nrt_tensor_memset:NRT_FAILURE",
                "'nrt_tensor_memset' is not a call a rule can fail (one of nrt_load, "
                "nrt_tensor_allocate, nrt_allocate_tensor_set, nrt_add_tensor_to_tensor_set, "
                "nrt_tensor_write, nrt_tensor_read, nrt_execute)");
}

TEST_F(CallFaultRulesTest, RefusesAMissingOrUnknownStatus) {
  ExpectRefused("nrt_load", "nrt_load",
                "has no status (<call>:<status>[:after=N][:count=M|all][:core=C])");
  ExpectRefused(
      "nrt_load:", "nrt_load:", "'' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
  ExpectRefused("nrt_load:NRT_BOGUS", "nrt_load:NRT_BOGUS",
                "'NRT_BOGUS' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
  ExpectRefused("nrt_load:-1", "nrt_load:-1",
                "'-1' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
  ExpectRefused("nrt_load:nrt_timeout", "nrt_load:nrt_timeout",
                "'nrt_timeout' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
  // Whitespace is ignored around a rule, not inside it.
  ExpectRefused("nrt_load: NRT_TIMEOUT", "nrt_load: NRT_TIMEOUT",
                "' NRT_TIMEOUT' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
}

TEST_F(CallFaultRulesTest, RefusesSuccess) {
  ExpectRefused("nrt_execute:NRT_SUCCESS", "nrt_execute:NRT_SUCCESS", "NRT_SUCCESS is no fault");
  ExpectRefused("nrt_execute:0", "nrt_execute:0", "NRT_SUCCESS is no fault");
}

TEST_F(CallFaultRulesTest, RefusesAStatusTheCallCannotReturn) {
  ExpectRefused("nrt_tensor_allocate:NRT_TIMEOUT", "nrt_tensor_allocate:NRT_TIMEOUT",
                "nrt_tensor_allocate cannot fail with NRT_TIMEOUT (it may fail with NRT_FAILURE, "
                "NRT_INVALID, NRT_RESOURCE, NRT_FAIL_HOST_MEM_ALLOC, NRT_HW_ERROR)");
  ExpectRefused("nrt_load:QUEUE_FULL", "nrt_load:QUEUE_FULL",
                "nrt_load cannot fail with NRT_QUEUE_FULL (it may fail with NRT_FAILURE, "
                "NRT_INVALID, NRT_RESOURCE, NRT_TIMEOUT, NRT_HW_ERROR, NRT_LOAD_NOT_ENOUGH_NC, "
                "NRT_UNSUPPORTED_NEFF_VERSION, NRT_FAIL_HOST_MEM_ALLOC)");
  ExpectRefused("nrt_allocate_tensor_set:NRT_TIMEOUT", "nrt_allocate_tensor_set:NRT_TIMEOUT",
                "nrt_allocate_tensor_set cannot fail with NRT_TIMEOUT (it may fail with "
                "NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_FAIL_HOST_MEM_ALLOC)");
  ExpectRefused("nrt_tensor_read:NRT_EXEC_HW_ERR_NC_UE", "nrt_tensor_read:NRT_EXEC_HW_ERR_NC_UE",
                "nrt_tensor_read cannot fail with NRT_EXEC_HW_ERR_NC_UE (it may fail with "
                "NRT_FAILURE, NRT_INVALID, NRT_TIMEOUT, NRT_HW_ERROR, NRT_EXEC_HW_ERR_DMA_ABORT, "
                "NRT_EXEC_HW_ERR_HBM_UE, NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE)");
  const std::string execute_statuses =
      "(it may fail with NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_TIMEOUT, NRT_HW_ERROR, "
      "NRT_QUEUE_FULL, NRT_EXEC_UNIT_UNRECOVERABLE, NRT_EXEC_BAD_INPUT, "
      "NRT_EXEC_COMPLETED_WITH_NUM_ERR, NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_NC_BUSY, "
      "NRT_EXEC_OOB, NRT_EXEC_HW_ERR_COLLECTIVES, NRT_EXEC_HW_ERR_HBM_UE, NRT_EXEC_HW_ERR_NC_UE, "
      "NRT_EXEC_HW_ERR_DMA_ABORT, NRT_EXEC_SW_NQ_OVERFLOW, NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE)";
  // Statuses that would misdescribe the caller's own handles or the runtime's state.
  ExpectRefused("nrt_execute:NRT_INVALID_HANDLE", "nrt_execute:NRT_INVALID_HANDLE",
                "nrt_execute cannot fail with NRT_INVALID_HANDLE " + execute_statuses);
  ExpectRefused("nrt_execute:14", "nrt_execute:14",
                "nrt_execute cannot fail with NRT_CLOSED " + execute_statuses);
  ExpectRefused("nrt_execute:1206", "nrt_execute:1206",
                "nrt_execute cannot fail with NRT_NETWORK_PROXY_FAILURE " + execute_statuses);
  // A number the ABI does not declare.
  ExpectRefused("nrt_execute:8", "nrt_execute:8",
                "nrt_execute cannot fail with 8 " + execute_statuses);
}

TEST_F(CallFaultRulesTest, RefusesBadOptions) {
  ExpectRefused("nrt_execute:NRT_TIMEOUT:after", "nrt_execute:NRT_TIMEOUT:after",
                "'after' is not an option (after=N, count=M, count=all or core=C)");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:every=2", "nrt_execute:NRT_TIMEOUT:every=2",
                "'every=2' is not an option (after=N, count=M, count=all or core=C)");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:", "nrt_execute:NRT_TIMEOUT:",
                "'' is not an option (after=N, count=M, count=all or core=C)");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:after=1:count=2:after=2",
                "nrt_execute:NRT_TIMEOUT:after=1:count=2:after=2", "after= is given twice");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:after=-1", "nrt_execute:NRT_TIMEOUT:after=-1",
                "after=-1 is not a whole number of calls to let through");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:after=", "nrt_execute:NRT_TIMEOUT:after=",
                "after= is not a whole number of calls to let through");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:count=0", "nrt_execute:NRT_TIMEOUT:count=0",
                "count=0 is not a number of calls to fail (1 or more, or all)");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:count=ALL", "nrt_execute:NRT_TIMEOUT:count=ALL",
                "count=ALL is not a number of calls to fail (1 or more, or all)");
  ExpectRefused("nrt_execute:NRT_TIMEOUT:count=99999999999999999999",
                "nrt_execute:NRT_TIMEOUT:count=99999999999999999999",
                "count=99999999999999999999 is not a number of calls to fail (1 or more, or all)");
}

TEST_F(CallFaultRulesTest, RefusesACoreThatIsNotVisible) {
  // Two visible cores by default.
  ExpectRefused("nrt_execute:NRT_TIMEOUT:core=2", "nrt_execute:NRT_TIMEOUT:core=2",
                "core=2 is not a visible core (2 visible cores, from 0)");
  ExpectRefused("nrt_load:NRT_TIMEOUT:core=-1", "nrt_load:NRT_TIMEOUT:core=-1",
                "core=-1 is not a visible core (2 visible cores, from 0)");
}

TEST_F(CallFaultRulesTest, CoresAreInVisibleNumbering) {
  SetEnv("NRTSIM_CORES", "4");
  SetEnv("NEURON_RT_VISIBLE_CORES", "2-3");
  ExpectRefused("nrt_tensor_write:NRT_TIMEOUT:core=2", "nrt_tensor_write:NRT_TIMEOUT:core=2",
                "core=2 is not a visible core (2 visible cores, from 0)");
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_TIMEOUT:core=1");
  Init();
}

TEST_F(CallFaultRulesTest, RefusesACoreForTheTensorSetCalls) {
  ExpectRefused("nrt_allocate_tensor_set:NRT_RESOURCE:core=0",
                "nrt_allocate_tensor_set:NRT_RESOURCE:core=0",
                "nrt_allocate_tensor_set has no core, so core= cannot select its calls");
  ExpectRefused("nrt_add_tensor_to_tensor_set:NRT_RESOURCE:count=2:core=1",
                "nrt_add_tensor_to_tensor_set:NRT_RESOURCE:count=2:core=1",
                "nrt_add_tensor_to_tensor_set has no core, so core= cannot select its calls");
}

TEST_F(CallFaultRulesTest, NamesTheBadRuleAmongGoodOnes) {
  ExpectRefused(" nrt_load:NRT_TIMEOUT ; nrt_execute:NRT_BOGUS ;nrt_tensor_read:1",
                "nrt_execute:NRT_BOGUS",
                "'NRT_BOGUS' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number");
}

TEST_F(CallFaultRulesTest, AQueryBeforeInitRefusesABadRuleToo) {
  SetEnv("NRTSIM_FAULTS", "nrt_load:NRT_BOGUS");
  uint32_t count = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(api().nrt_get_total_nc_count(&count), NRT_INVALID);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("nrtsim: nrt_get_total_nc_count: NRTSIM_FAULTS='nrt_load:NRT_BOGUS' "
                         "has a bad rule"),
            std::string::npos)
      << printed;
}

}  // namespace call_fault_rules_test
}  // namespace nrtsim_test
