// Which visible cores of a session hold a loaded model, so that nrt_load with start core -1
// can take "the first free core": the lowest core from which the model's nc_count consecutive
// cores hold no model. Every loaded model, wherever it was placed, holds a Claim on its cores
// for its lifetime.
//
// Thread-safe: choosing and claiming a run of cores is one step, so concurrent loads with -1
// never pick the same free cores. Shared (shared_ptr) by the session and every Claim.
#ifndef NEURON_SERVE_SIM_CORE_OCCUPANCY_H_
#define NEURON_SERVE_SIM_CORE_OCCUPANCY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/mutex.h"

namespace neuronserve::nrtsim {

class CoreOccupancy : public std::enable_shared_from_this<CoreOccupancy> {
 public:
  // Cores start .. start + count - 1 occupied by one model until the Claim is destroyed.
  class Claim {
   public:
    Claim(Claim&& other) noexcept;
    Claim& operator=(Claim&& other) noexcept;
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim();

    uint32_t start() const { return start_; }

   private:
    friend class CoreOccupancy;
    Claim(std::shared_ptr<CoreOccupancy> owner, uint32_t start, uint32_t count);
    void Release();

    std::shared_ptr<CoreOccupancy> owner_;
    uint32_t start_ = 0;
    uint32_t count_ = 0;
  };

  explicit CoreOccupancy(uint32_t core_count) : models_on_core_(core_count, 0) {}

  // Claims cores start .. start + count - 1, which the caller checked are visible; several
  // models may share cores.
  Claim ClaimCores(uint32_t start, uint32_t count);
  // Claims the lowest run of `count` cores that hold no model; nullopt if there is none.
  std::optional<Claim> ClaimFirstFree(uint32_t count);

 private:
  void Release(uint32_t start, uint32_t count);

  Mutex mutex_;
  std::vector<uint32_t> models_on_core_ ABSL_GUARDED_BY(mutex_);  // by visible core
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_CORE_OCCUPANCY_H_
