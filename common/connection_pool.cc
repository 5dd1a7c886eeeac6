#include "common/connection_pool.h"

#include <utility>

namespace netbench {

void ConnectionPool::Put(std::unique_ptr<Transport> connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(connection));
}

std::unique_ptr<Transport> ConnectionPool::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.empty()) return nullptr;
  std::unique_ptr<Transport> connection = std::move(idle_.back());
  idle_.pop_back();
  return connection;
}

size_t ConnectionPool::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

void ConnectionPool::Clear() {
  std::vector<std::unique_ptr<Transport>> closing;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing.swap(idle_);
  }
  // Closed outside the lock: a TLS close may write.
}

}  // namespace netbench
