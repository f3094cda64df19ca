// FairShare alone: the order in which the replicas bound to one core are asked, the lift of an
// idle binding, a newcomer's start, and charges across a Remove. The models are only compared
// by address here, so none is loaded.
#include "core/serving/execution/fair_share.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace fair_share_test {
namespace {

// A model FairShare only compares by address.
class AnyModel : public ServedModel {
 public:
  const std::string& name() const override { return name_; }
  Scheduler* scheduler() const override { return nullptr; }
  const std::vector<std::unique_ptr<ModelReplica>>& replicas() const override { return replicas_; }
  const std::vector<TensorSpec>& inputs() const override { return tensors_; }
  const std::vector<TensorSpec>& outputs() const override { return tensors_; }
  void RecordExecution(uint32_t, absl::Duration, absl::Duration, absl::Duration) override {}

 private:
  std::string name_ = "any";
  std::vector<std::unique_ptr<ModelReplica>> replicas_;
  std::vector<TensorSpec> tensors_;
};

// Records the order in which Choose offers the bindings, taking the one at `take` (or none).
std::vector<const ModelReplica*> Offered(FairShare& share, const ModelReplica* take,
                                         const FairShare::Binding** chosen = nullptr) {
  std::vector<const ModelReplica*> offered;
  const FairShare::Binding* taken = share.Choose([&](const FairShare::Binding& binding) {
    offered.push_back(binding.replica);
    return binding.replica == take;
  });
  if (chosen != nullptr) *chosen = taken;
  return offered;
}

absl::Duration UsedBy(const FairShare& share, const ModelReplica* replica) {
  for (const FairShare::Binding& binding : share.bindings()) {
    if (binding.replica == replica) return binding.used;
  }
  ADD_FAILURE() << "not bound";
  return absl::ZeroDuration();
}

TEST(FairShareTest, AsksTheLeastServedFirstAndEqualsInTurn) {
  ModelReplica a, b, c;
  FairShare share;
  share.Add(nullptr, &a);
  share.Add(nullptr, &b);
  share.Add(nullptr, &c);
  // All equal: in turn, and the turn passes on after each one served.
  EXPECT_EQ(Offered(share, &a), (std::vector<const ModelReplica*>{&a}));
  EXPECT_EQ(Offered(share, &b), (std::vector<const ModelReplica*>{&b}));
  EXPECT_EQ(Offered(share, nullptr), (std::vector<const ModelReplica*>{&c, &a, &b}));
  // b had 3 ms, a 1 ms, c none: c, then a, then b.
  share.Charge(&a, share.generation(), absl::Milliseconds(1));
  share.Charge(&b, share.generation(), absl::Milliseconds(3));
  EXPECT_EQ(Offered(share, nullptr), (std::vector<const ModelReplica*>{&c, &a, &b}));
}

TEST(FairShareTest, AnIdleBindingIsLiftedToTheServedOneButABusyOneIsNot) {
  ModelReplica idle, busy, served;
  busy.free_tensor_sets.store(0);  // every set in flight
  FairShare share;
  share.Add(nullptr, &idle);
  share.Add(nullptr, &busy);
  share.Add(nullptr, &served);
  share.Charge(&served, share.generation(), absl::Milliseconds(5));
  const FairShare::Binding* chosen = nullptr;
  // idle and busy (0 ms) are asked before served (5 ms); only served takes.
  EXPECT_EQ(Offered(share, &served, &chosen),
            (std::vector<const ModelReplica*>{&idle, &busy, &served}));
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->replica, &served);
  EXPECT_EQ(UsedBy(share, &idle), absl::Milliseconds(5));
  EXPECT_EQ(UsedBy(share, &busy), absl::ZeroDuration());
}

TEST(FairShareTest, ANewcomerStartsLevelWithTheLeastServed) {
  ModelReplica a, b, late;
  FairShare share;
  share.Add(nullptr, &a);
  share.Add(nullptr, &b);
  share.Charge(&a, share.generation(), absl::Milliseconds(7));
  share.Charge(&b, share.generation(), absl::Milliseconds(4));
  share.Add(nullptr, &late);
  EXPECT_EQ(UsedBy(share, &late), absl::Milliseconds(4));
}

TEST(FairShareTest, RemoveUnbindsEveryReplicaOfTheModelAndVoidsEarlierCharges) {
  ModelReplica one, two, other;
  AnyModel model, other_model;
  ServedModel* served = &model;
  ServedModel* other_served = &other_model;
  FairShare share;
  share.Add(served, &one);
  share.Add(other_served, &other);
  share.Add(served, &two);
  const uint64_t before = share.generation();
  std::vector<const ModelReplica*> removed;
  share.Remove(served, [&](const FairShare::Binding& b) { removed.push_back(b.replica); });
  EXPECT_EQ(removed, (std::vector<const ModelReplica*>{&one, &two}));
  ASSERT_EQ(share.bindings().size(), 1u);
  EXPECT_EQ(share.bindings()[0].replica, &other);
  // A charge for a unit taken before the Remove is dropped, even for a binding still there.
  share.Charge(&other, before, absl::Milliseconds(2));
  EXPECT_EQ(UsedBy(share, &other), absl::ZeroDuration());
  share.Charge(&other, share.generation(), absl::Milliseconds(2));
  EXPECT_EQ(UsedBy(share, &other), absl::Milliseconds(2));
}

}  // namespace
}  // namespace fair_share_test
}  // namespace neuronserve
