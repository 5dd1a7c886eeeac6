// Open, idle connections to one server, kept between the sessions of a client driver run and
// between runs (client_driver.h), as an HTTP client keeps its connections alive per host.
//
//   ConnectionPool pool;  // outlives the runs
//   options.pool = &pool;
//   RunClientDriver(options, factory);  // finished sessions whose reusable() says so leave theirs
//   RunClientDriver(options, factory);  // this run's sessions start on the first run's connections
//
// A pool serves one server (one address, one TLS setting): give it only to runs against that one.
// The newest idle connection is taken first, so that a run needing fewer than are kept uses the
// ones most recently known to be alive. The server may close an idle connection whenever it likes;
// the driver finds out when it next uses it (ClientSession::Restart).
//
// Thread-safe: the threads model's connections and several event loops share one pool.
#ifndef NETBENCH_COMMON_CONNECTION_POOL_H_
#define NETBENCH_COMMON_CONNECTION_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "common/transport.h"

namespace netbench {

class ConnectionPool {
 public:
  // Keeps `connection` (its handshake done, nothing unread or unsent on it) for a later session.
  void Put(std::unique_ptr<Transport> connection);
  // The newest idle connection, or nullptr when none is kept. Its socket is left in whatever
  // blocking mode its last user set.
  std::unique_ptr<Transport> Take();
  size_t idle() const;
  // Closes every idle connection.
  void Clear();

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Transport>> idle_;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_CONNECTION_POOL_H_
