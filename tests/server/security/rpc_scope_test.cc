// server/security/rpc_scope: the scope table.
#include "server/security/rpc_scope.h"

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(RpcScopeTest, EachNativeRpcNeedsItsScope) {
  for (const char* method : {"Infer", "InferStream", "GetModel", "ListModels", "Enumerate"}) {
    EXPECT_EQ(RequiredScope(std::string("/neuronserve.v1.NeuronServing/") + method), Scope::kInfer)
        << method;
  }
  for (const char* method : {"LoadModel", "UnloadModel"}) {
    EXPECT_EQ(RequiredScope(std::string("/neuronserve.v1.NeuronServing/") + method), Scope::kAdmin)
        << method;
  }
}

TEST(RpcScopeTest, EachV2RpcNeedsItsScope) {
  const std::string service = "/inference.GRPCInferenceService/";
  for (const char* method : {"ServerLive", "ServerReady", "ModelReady"}) {
    EXPECT_EQ(RequiredScope(service + method), Scope::kNone) << method;
  }
  for (const char* method :
       {"ServerMetadata", "ModelMetadata", "ModelInfer", "ModelStreamInfer", "ModelStatistics",
        "ModelConfig"}) {
    EXPECT_EQ(RequiredScope(service + method), Scope::kInfer) << method;
  }
  for (const char* method : {"RepositoryIndex", "RepositoryModelLoad", "RepositoryModelUnload"}) {
    EXPECT_EQ(RequiredScope(service + method), Scope::kAdmin) << method;
  }
  // A method the table does not know stays closed; a v2 name under another service is not v2.
  EXPECT_EQ(RequiredScope(service + "TraceSetting"), Scope::kAdmin);
  EXPECT_EQ(RequiredScope("/neuronserve.v1.NeuronServing/ServerLive"), Scope::kAdmin);
  EXPECT_EQ(RequiredScope("/inference.GRPCInferenceService.Extra/ServerLive"), Scope::kAdmin);
  EXPECT_EQ(RpcName(service + "RepositoryModelLoad"), "RepositoryModelLoad");
}

TEST(RpcScopeTest, HealthNeedsNoTokenAndAnUnknownMethodNeedsAdmin) {
  EXPECT_EQ(RequiredScope("/grpc.health.v1.Health/Check"), Scope::kNone);
  EXPECT_EQ(RequiredScope("/grpc.health.v1.Health/Watch"), Scope::kNone);
  EXPECT_EQ(RequiredScope("/neuronserve.v1.NeuronServing/Reboot"), Scope::kAdmin);
  EXPECT_EQ(RequiredScope("/other.Service/Infer"), Scope::kAdmin);
}

TEST(RpcScopeTest, AdminImpliesInferButNotTheOtherWay) {
  EXPECT_TRUE(ScopeAllows(Scope::kAdmin, Scope::kInfer));
  EXPECT_TRUE(ScopeAllows(Scope::kAdmin, Scope::kAdmin));
  EXPECT_TRUE(ScopeAllows(Scope::kInfer, Scope::kInfer));
  EXPECT_FALSE(ScopeAllows(Scope::kInfer, Scope::kAdmin));
  EXPECT_FALSE(ScopeAllows(Scope::kNone, Scope::kInfer));
  EXPECT_TRUE(ScopeAllows(Scope::kNone, Scope::kNone));
}

TEST(RpcScopeTest, RpcNameIsTheLastPathPart) {
  EXPECT_EQ(RpcName("/neuronserve.v1.NeuronServing/LoadModel"), "LoadModel");
  EXPECT_EQ(RpcName("Infer"), "Infer");
}

}  // namespace
}  // namespace neuronserve
