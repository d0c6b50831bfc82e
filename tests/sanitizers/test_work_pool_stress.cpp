// The engine's worker pool under concurrent use, for the sanitizer builds (TSan above all):
// several threads submit, cancel and wait at once, tasks throw, and the pool is destroyed with
// work still queued. The engine itself submits only from its own thread and only with a model
// (LibTorch), which TSan cannot see into, so this drives the pool directly, without LibTorch.

#include "core/engine/work_pool.h"

#include <QtTest>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

class TestWorkPoolStress : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void concurrentSubmitCancelWait() {
        constexpr int kSubmitters = 4, kPerSubmitter = 400;
        std::atomic<int> started{0};
        std::vector<std::shared_ptr<fog::WorkItem>> items(kSubmitters * kPerSubmitter);
        std::vector<long> out(items.size(), -1); // each slot written by its own task only
        {
            fog::WorkPool pool(3, [&] { started.fetch_add(1); });
            std::vector<std::thread> submitters;
            for (int s = 0; s < kSubmitters; ++s)
                submitters.emplace_back([&, s] {
                    for (int k = 0; k < kPerSubmitter; ++k) {
                        const int i = s * kPerSubmitter + k;
                        items[i] = pool.submit((i * 7919) % 101, [&out, i](const std::atomic<bool>& c) {
                            if (i % 11 == 0) throw std::runtime_error("task failed");
                            if (!c.load()) out[i] = long(i) * i;
                        });
                        if (i % 7 == 0) items[i]->cancel();
                    }
                });
            for (auto& t : submitters) t.join();
            // Wait from two threads at once, as the engine and a GUI probe could.
            std::atomic<int> errors{0};
            auto waitAll = [&](int from, int step) {
                for (std::size_t i = from; i < items.size(); i += step) {
                    try {
                        items[i]->wait();
                    } catch (const std::runtime_error&) {
                        errors.fetch_add(1);
                    }
                }
            };
            std::thread other(waitAll, 0, 2);
            waitAll(1, 2);
            other.join();
            int throwers = 0;
            for (std::size_t i = 0; i < items.size(); ++i) {
                QVERIFY(items[i]->done());
                const bool cancelled = i % 7 == 0, throws = i % 11 == 0;
                if (throws && !cancelled) ++throwers;
                if (!cancelled && !throws) QCOMPARE(out[i], long(i) * long(i));
                if (throws) QCOMPARE(out[i], -1L);
            }
            // A cancelled task that had already started may still throw; never more.
            QVERIFY(errors.load() >= throwers);
        }
        QCOMPARE(started.load(), 3);
    }

    void destroyedWithQueuedWork() {
        std::vector<std::shared_ptr<fog::WorkItem>> items;
        std::atomic<int> ran{0};
        {
            fog::WorkPool pool(2);
            for (int i = 0; i < 200; ++i)
                items.push_back(pool.submit(i, [&](const std::atomic<bool>&) {
                    std::this_thread::sleep_for(std::chrono::microseconds(200));
                    ran.fetch_add(1);
                }));
        } // queued work is dropped, running work finishes
        for (auto& item : items) {
            QVERIFY(item->done());
            item->wait(); // must not block
        }
        QVERIFY(ran.load() < 200);
    }

    void lowerPriorityRunsFirst() {
        std::vector<int> order;
        std::mutex m;
        fog::WorkPool pool(1);
        std::atomic<bool> release{false};
        // Hold the only worker so that the rest queue up, then let them run.
        auto gate = pool.submit(-1, [&](const std::atomic<bool>&) {
            while (!release.load()) std::this_thread::yield();
        });
        std::vector<std::shared_ptr<fog::WorkItem>> items;
        for (int p : {5, 1, 4, 2, 3})
            items.push_back(pool.submit(p, [&, p](const std::atomic<bool>&) {
                std::lock_guard lock(m);
                order.push_back(p);
            }));
        release.store(true);
        gate->wait();
        for (auto& item : items) item->wait();
        QCOMPARE(order, (std::vector<int>{1, 2, 3, 4, 5}));
    }
};

QTEST_APPLESS_MAIN(TestWorkPoolStress)
#include "test_work_pool_stress.moc"
