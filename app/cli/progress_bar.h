#pragma once
// A progress bar for many runs (sweeps, searches): a live bar on a terminal, a plain line
// per run in a log, on stderr either way.

#include <string>

namespace fog::cli {

class ProgressBar {
public:
    explicit ProgressBar(bool enabled);
    /// `done` of `total` runs; `what` describes the run that just finished.
    void update(int done, int total, const std::string& prefix, const std::string& what);
    /// Ends the live line (call before printing anything else).
    void finish();

private:
    bool enabled_;
    bool tty_;
    bool open_ = false;
    double started_;
};

} // namespace fog::cli
