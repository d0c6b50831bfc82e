// Wall time beside virtual time (see pacer.h).

#include "core/engine/pacer.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace fog {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

void Pacer::start() { wallStart_ = wallNow(); }

double Pacer::wallSeconds() const { return wallNow() - wallStart_; }

void Pacer::paceTo(double now, double t) {
    // The anchor moves when the speed changes or the run fell behind (a pause, heavy work),
    // so it never races to catch up.
    double shown = now;
    while (!control_.checkCancel(cancelFlag_)) {
        const double speed = control_.playbackSpeed();
        if (speed <= 0 || control_.isPaused()) break;
        const double wall = wallNow();
        double v = virtual_ + (wall - wall_) * speed;
        if (speed != speed_ || v > t + 0.25 * speed) {
            speed_ = speed;
            wall_ = wall;
            virtual_ = v = shown;
        }
        shown = std::min(v, t);
        control_.setClock(shown);
        if (v >= t) break;
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::min<long>(20, static_cast<long>((t - v) / speed * 1000) + 1)));
    }
}

} // namespace fog
