#pragma once
// Wall-clock bounds in pass/fail assertions (issue 30). Timings belong to benchmarks: on a
// shared 2-core machine at load 4-5 a 200 ms stop can take a second and the GUI thread can be
// descheduled for hundreds of milliseconds. So the tests print what they measure and assert on
// event counts where there is one (a stop at teaching speed ends with no round done; an event
// step at 0.01 virtual s per wall s is stopped long before its event), and otherwise only on
// bounds one to two orders of magnitude above the requirement: they catch a stop that waits
// for the next event, a cancel that is never seen, a window frozen for seconds, never load.

namespace fogtest {

/// "At once" (stop, cancel, resume, destroy while running): the requirement is 200 ms.
constexpr double kPromptMs = 20000.0;

/// The longest the GUI thread may be held by the studio's own handlers (the requirement is
/// 100 ms; EventLoopProbe already leaves out the time it waited for a CPU).
constexpr double kGuiBlockedMs = 2000.0;

} // namespace fogtest
