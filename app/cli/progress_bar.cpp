#include "app/cli/progress_bar.h"

#include <chrono>
#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace fog::cli {

namespace {
double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled), tty_(isatty(fileno(stderr)) != 0), started_(wallNow()) {}

void ProgressBar::update(int done, int total, const std::string& prefix, const std::string& what) {
    if (!enabled_) return;
    const double elapsed = wallNow() - started_;
    const double eta = done > 0 && total > done ? elapsed / done * (total - done) : 0.0;
    if (!tty_) {
        std::fprintf(stderr, "[%d/%d] %s%s\n", done, total, prefix.c_str(), what.c_str());
        std::fflush(stderr);
        return;
    }
    constexpr int kWidth = 28;
    const int filled = total > 0 ? std::min(kWidth, done * kWidth / total) : 0;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::string tail = what;
    if (tail.size() > 60) tail = tail.substr(0, 57) + "...";
    std::fprintf(stderr, "\r\033[K[%s] %d/%d %s%s  %.0f s left", bar.c_str(), done, total, prefix.c_str(),
                 tail.c_str(), eta);
    std::fflush(stderr);
    open_ = true;
}

void ProgressBar::finish() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
}

} // namespace fog::cli
