#pragma once
// Wall-clock bounds in pass/fail assertions (issue 30). Timings belong to benchmarks: on a
// shared 2-core machine at load 4-5 a 200 ms stop can take a second and the GUI thread can be
// descheduled for hundreds of milliseconds. So the tests print what they measure and assert on
// event counts where there is one (a stop at teaching speed ends with no round done; an event
// step at 0.01 virtual s per wall s is stopped long before its event), and otherwise only on
// bounds one to two orders of magnitude above the requirement: they catch a stop that waits
// for the next event, a cancel that is never seen, a window frozen for seconds, never load.

namespace fogtest {

/// "At once" (stop, cancel, resume, destroy while running): the requirement is 200 ms. 20 s
/// was reached by a clean clone's suite while seven builds shared the machine (load 13-17).
constexpr double kPromptMs = 120000.0;

/// How long a test waits for a short run to end by itself before calling it a hang: runs
/// that take seconds on a quiet machine took over 100 s at load 17.
constexpr int kRunEndsMs = 600000;

/// The longest the GUI thread may be held by the studio's own handlers (the requirement is
/// 100 ms; EventLoopProbe already leaves out the time it waited for a CPU).
constexpr double kGuiBlockedMs = 2000.0;

} // namespace fogtest
