#pragma once
// Measures the GUI thread's event-loop latency during a run: a 10 ms timer, and the longest
// gap between its ticks. On a shared machine the thread also waits for a CPU behind other
// processes; the kernel counts that wait (/proc/thread-self/schedstat), so a gap can be
// split into "blocked" (handlers running or the thread waiting on a lock: the studio's
// fault) and "waiting for a CPU" (the machine's). Tests assert on the first, and report both.

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTimer>

#include <algorithm>

class EventLoopProbe : public QObject {
public:
    EventLoopProbe() {
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, this, [this] { tick(); });
    }
    void start() {
        clock_.start();
        timer_.start();
    }
    void stop() { timer_.stop(); }

    int ticks() const { return ticks_; }
    qint64 maxGapMs() const { return maxGap_; }
    double cpuWaitAtMaxGapMs() const { return waitAtMaxGap_; }
    /// The longest gap less the time the thread spent waiting for a CPU in it.
    double maxBlockedMs() const { return maxBlocked_; }
    QString report() const {
        return QString("%1 ticks, longest gap %2 ms (%3 ms of it waiting for a CPU behind other processes), longest "
                       "gap not explained by CPU wait %4 ms")
            .arg(ticks_)
            .arg(maxGap_)
            .arg(waitAtMaxGap_, 0, 'f', 1)
            .arg(maxBlocked_, 0, 'f', 1);
    }

private:
    static double runQueueMs() {
        QFile f("/proc/thread-self/schedstat");
        if (!f.open(QIODevice::ReadOnly)) return 0.0;
        const QList<QByteArray> parts = f.readAll().split(' ');
        return parts.size() >= 2 ? parts[1].toDouble() / 1e6 : 0.0;
    }
    void tick() {
        const qint64 now = clock_.elapsed();
        const double wait = runQueueMs();
        if (ticks_ > 0) {
            const qint64 gap = now - last_;
            if (gap > maxGap_) {
                maxGap_ = gap;
                waitAtMaxGap_ = wait - lastWait_;
            }
            maxBlocked_ = std::max(maxBlocked_, static_cast<double>(gap) - (wait - lastWait_));
        }
        last_ = now;
        lastWait_ = wait;
        ++ticks_;
    }

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0, maxGap_ = 0;
    double lastWait_ = 0, waitAtMaxGap_ = 0, maxBlocked_ = 0;
    int ticks_ = 0;
};
