#pragma once
// The Linux side of the testbed (docs/testbed.md): privileges, network namespaces held by
// processes, `ip` and `tc` run inside them with checked exit codes, and the clean-up of
// leftovers. Plain POSIX and Linux calls, no Qt.
//
// A namespace here is never named (no `ip netns add`, no bind mount): each is created by a
// forked process with unshare(CLONE_NEWNET) and lives exactly as long as that process. Every
// such process dies with its owner (PR_SET_PDEATHSIG), and its name (comm) is
// `fsb<owner pid>`, so a start can find and end what a dead owner left behind.

#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

namespace fog::testbed {

/// A failure of the testbed: set-up, a command, a process. The message says what failed.
struct TestbedError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Empty when this process may create network namespaces and shape links (root, or
/// CAP_NET_ADMIN with CAP_SYS_ADMIN), else the message to show the user.
std::string privilegeProblem();

/// The process name (comm) of the boxes this process owns: "fsb<pid>".
std::string boxName(pid_t owner);

/// Ends the boxes of owners that are gone (comm `fsb<pid>` whose pid no longer runs) and
/// waits for them to go; returns how many it ended. Never touches another process.
int cleanLeftovers();
/// The pids of the live boxes of `owner` (tests: nothing is left after a run).
std::vector<pid_t> boxesOf(pid_t owner);

/// Output and exit of a command.
struct CommandResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};

/// Runs argv (argv[0] looked up in PATH) in the network namespace of process `nsPid` (0:
/// this process's), with `input` on its standard input. Throws TestbedError naming the
/// command when it cannot be started; a non-zero exit is returned, not thrown.
CommandResult runIn(pid_t nsPid, const std::vector<std::string>& argv, const std::string& input = {});
/// The same, throwing TestbedError naming the command, its exit code and its error output
/// when it fails.
std::string mustRun(pid_t nsPid, const std::vector<std::string>& argv, const std::string& input = {});

/// The inode of a process's network namespace (/proc/PID/ns/net); 0 when unknown.
unsigned long netnsInode(pid_t pid);

/// Queueing disciplines this kernel offers, tried on a veth in a scratch namespace.
struct KernelFeatures {
    bool tbf = false;
    bool htb = false;
    bool netem = false; ///< with a tbf child (delay, then rate)
};

/// One process holding a network namespace. Created by Box::spawn: it forks, the child makes
/// its namespace, tells the parent, waits for `go()` and then runs its role function (or
/// just holds the namespace when the function is empty) until it is ended. The destructor
/// ends the process (SIGKILL) and reaps it, which removes the namespace and its links.
class Box {
public:
    using Role = int (*)(void* context, int resultFd);

    /// `role` runs in the child after go(); it writes its results to `resultFd` and returns
    /// the child's exit status (the child then holds the namespace until it is ended).
    static Box spawn(const std::string& label, Role role, void* context);

    Box() = default;
    Box(Box&& o) noexcept;
    Box& operator=(Box&& o) noexcept;
    Box(const Box&) = delete;
    Box& operator=(const Box&) = delete;
    ~Box();

    pid_t pid() const { return pid_; }
    const std::string& label() const { return label_; }
    /// Lets the child start its role.
    void go();
    /// The pipe the child's role writes its results to (read end; -1 when closed).
    int resultFd() const { return resultFd_; }
    /// True while the child runs; sets `status` (waitpid's) when it has ended.
    bool alive(int* status = nullptr);
    /// Ends and reaps the child (idempotent).
    void end();

private:
    pid_t pid_ = -1;
    int goFd_ = -1;
    int resultFd_ = -1;
    std::string label_;
};

/// Detects the qdiscs in a scratch box (spawned and ended here).
KernelFeatures detectKernelFeatures();

} // namespace fog::testbed
