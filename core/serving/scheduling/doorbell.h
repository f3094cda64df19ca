// Doorbell: how a request queue wakes the workers that serve it.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_DOORBELL_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_DOORBELL_H_

namespace neuronserve {

class Doorbell {
 public:
  virtual ~Doorbell() = default;
  // Something may be ready to take. Cheap, never blocks for long, takes no queue lock.
  virtual void Ring() = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_DOORBELL_H_
