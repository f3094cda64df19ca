// NameThisThread: names the calling thread for profilers, debuggers and `top -H` (Linux keeps
// at most 15 characters; a longer name is cut there rather than refused).
//
// Header-only; thread-safe (it names only the calling thread).
#ifndef NEURON_SERVE_BASE_THREAD_NAME_H_
#define NEURON_SERVE_BASE_THREAD_NAME_H_

#include <pthread.h>

#include <string>

namespace neuronserve {

inline void NameThisThread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_THREAD_NAME_H_
