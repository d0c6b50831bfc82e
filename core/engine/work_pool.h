#pragma once
// Worker threads for the real training. Tasks run in order of the virtual time at which the
// engine will need their result, so the work needed first is done first, and work that a
// policy discards before it starts (n-sync's late trainers) is never done at all.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace fog {

/// A task's handle: wait for it, or cancel it (a task not started is skipped; a running one
/// sees `cancelled` and may stop early).
class WorkItem {
public:
    void wait();
    bool done() const;
    void cancel() { cancelled.store(true); }
    std::atomic<bool> cancelled{false};

private:
    friend class WorkPool;
    std::function<void(const std::atomic<bool>&)> fn_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::exception_ptr error_;
};

class WorkPool {
public:
    /// `threads` workers; `onThreadStart` runs first on each (e.g. to set BLAS threads).
    explicit WorkPool(int threads, std::function<void()> onThreadStart = {});
    ~WorkPool();
    WorkPool(const WorkPool&) = delete;
    WorkPool& operator=(const WorkPool&) = delete;

    /// Queues `fn`; lower `priority` runs first, ties in submission order.
    std::shared_ptr<WorkItem> submit(double priority, std::function<void(const std::atomic<bool>&)> fn);
    int threads() const { return static_cast<int>(workers_.size()); }

private:
    struct Entry {
        double priority;
        std::uint64_t seq;
        std::shared_ptr<WorkItem> item;
        bool operator>(const Entry& o) const {
            return priority != o.priority ? priority > o.priority : seq > o.seq;
        }
    };
    void loop();

    std::mutex mutex_;
    std::condition_variable cv_;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
    std::uint64_t seq_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
    std::function<void()> onThreadStart_;
};

} // namespace fog
