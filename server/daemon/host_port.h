// HOST:PORT addresses as the daemon's flags give them (--listen, --http-listen).
#ifndef NEURON_SERVE_SERVER_DAEMON_HOST_PORT_H_
#define NEURON_SERVE_SERVER_DAEMON_HOST_PORT_H_

#include <string>

namespace neuronserve {

// `address` with its port replaced by `port`: the address a server actually bound when it was
// asked for port 0. "127.0.0.1:0" + 43210 -> "127.0.0.1:43210"; "[::]:0" -> "[::]:43210".
std::string WithPort(const std::string& address, int port);

// Whether HOST:PORT names a loopback host only: localhost, 127.0.0.0/8 or [::1]. An address on
// every interface (0.0.0.0, [::]) or any other host is not: it can be reached from elsewhere.
bool IsLoopbackAddress(const std::string& address);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_HOST_PORT_H_
