#include "core/engine/work_pool.h"

namespace fog {

void WorkItem::wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(error_);
}

bool WorkItem::done() const {
    std::lock_guard lock(mutex_);
    return done_;
}

WorkPool::WorkPool(int threads, std::function<void()> onThreadStart)
    : onThreadStart_(std::move(onThreadStart)) {
    if (threads < 1) threads = 1;
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { loop(); });
}

WorkPool::~WorkPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        while (!queue_.empty()) {
            auto item = queue_.top().item;
            queue_.pop();
            item->cancel();
            std::lock_guard itemLock(item->mutex_);
            item->done_ = true; // nobody may wait forever on work that will never run
            item->cv_.notify_all();
        }
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

std::shared_ptr<WorkItem> WorkPool::submit(double priority,
                                           std::function<void(const std::atomic<bool>&)> fn) {
    auto item = std::make_shared<WorkItem>();
    item->fn_ = std::move(fn);
    {
        std::lock_guard lock(mutex_);
        queue_.push({priority, seq_++, item});
    }
    cv_.notify_one();
    return item;
}

void WorkPool::loop() {
    if (onThreadStart_) onThreadStart_();
    for (;;) {
        std::shared_ptr<WorkItem> item;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_ && queue_.empty()) return;
            item = queue_.top().item;
            queue_.pop();
        }
        std::exception_ptr error;
        if (!item->cancelled.load()) {
            try {
                item->fn_(item->cancelled);
            } catch (...) {
                error = std::current_exception();
            }
        }
        item->fn_ = nullptr; // release captured snapshots early
        {
            std::lock_guard lock(item->mutex_);
            item->done_ = true;
            item->error_ = error;
        }
        item->cv_.notify_all();
    }
}

} // namespace fog
