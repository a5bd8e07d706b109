#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace sluice {

// A blocking FIFO with a fixed capacity: the pipeline's backpressure. push() waits while the
// queue is full; pop() waits while it is empty; close() wakes everyone (pop() then drains
// what is left and returns nothing once empty). Threading: any number of producers and
// consumers.
template <typename T>
class bounded_queue {
 public:
  explicit bounded_queue(size_t capacity) : _capacity(capacity) {}

  // Returns false if the queue was closed (the item is dropped).
  bool push(T item) {
    std::unique_lock lock(_mutex);
    _not_full.wait(lock, [&] { return _closed || _items.size() < _capacity; });
    if (_closed) return false;
    _items.push_back(std::move(item));
    _not_empty.notify_one();
    return true;
  }

  // Waits at most `wait` for room; false when there was none (or the queue is closed).
  bool try_push_for(T& item, std::chrono::milliseconds wait) {
    std::unique_lock lock(_mutex);
    if (!_not_full.wait_for(lock, wait, [&] { return _closed || _items.size() < _capacity; })) {
      return false;
    }
    if (_closed) return false;
    _items.push_back(std::move(item));
    _not_empty.notify_one();
    return true;
  }

  std::optional<T> pop() {
    std::unique_lock lock(_mutex);
    _not_empty.wait(lock, [&] { return _closed || !_items.empty(); });
    if (_items.empty()) return std::nullopt;
    T item = std::move(_items.front());
    _items.pop_front();
    _not_full.notify_one();
    return item;
  }

  bool full() const {
    std::lock_guard lock(_mutex);
    return _items.size() >= _capacity;
  }

  bool closed() const {
    std::lock_guard lock(_mutex);
    return _closed;
  }
  void close() {
    std::lock_guard lock(_mutex);
    _closed = true;
    _not_full.notify_all();
    _not_empty.notify_all();
  }

 private:
  const size_t _capacity;
  mutable std::mutex _mutex;
  std::condition_variable _not_full;
  std::condition_variable _not_empty;
  std::deque<T> _items;
  bool _closed = false;
};

}  // namespace sluice
