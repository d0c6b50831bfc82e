// Namespaces held by processes, commands run inside them, privileges and leftovers
// (netns.h). Everything a child does between fork() and exec() or its role is plain system
// calls: the parent may have threads (the prediction's workers).

#include "core/testbed/netns.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fog::testbed {

namespace {

std::string joined(const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

/// Capability bits from /proc/self/status's CapEff line.
unsigned long long effectiveCapabilities() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
    return 0;
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

bool processRuns(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

std::string readSmallFile(const std::string& path) {
    std::ifstream in(path);
    std::string s;
    std::getline(in, s);
    return s;
}

/// True for a process that has ended and waits to be reaped (its namespace is already gone):
/// a box whose owner died is reaped by init, which may take its time.
bool isZombie(const std::string& pidDir) {
    const std::string stat = readSmallFile(pidDir + "/stat");
    const auto close = stat.rfind(')');
    return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

/// (pid, owner) of every live process named fsb<owner>.
std::vector<std::pair<pid_t, pid_t>> allBoxes() {
    std::vector<std::pair<pid_t, pid_t>> found;
    DIR* d = ::opendir("/proc");
    if (!d) return found;
    while (dirent* e = ::readdir(d)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        const std::string comm = readSmallFile(std::string("/proc/") + e->d_name + "/comm");
        if (comm.size() < 4 || comm.compare(0, 3, "fsb") != 0) continue;
        const long owner = std::strtol(comm.c_str() + 3, &end, 10);
        if (owner <= 0 || *end != '\0') continue;
        if (isZombie(std::string("/proc/") + e->d_name)) continue;
        found.emplace_back(static_cast<pid_t>(pid), static_cast<pid_t>(owner));
    }
    ::closedir(d);
    return found;
}

} // namespace

std::string privilegeProblem() {
    constexpr unsigned long long kNetAdmin = 1ULL << 12, kSysAdmin = 1ULL << 21;
    const unsigned long long caps = effectiveCapabilities();
    if ((caps & kNetAdmin) && (caps & kSysAdmin)) return {};
    std::string missing;
    if (!(caps & kNetAdmin)) missing = "CAP_NET_ADMIN";
    if (!(caps & kSysAdmin)) missing += std::string(missing.empty() ? "" : " and ") + "CAP_SYS_ADMIN";
    return "the testbed needs root (or " + missing +
           ") to create network namespaces and shape their links with tc; this process (uid " +
           std::to_string(::geteuid()) + ") lacks " + missing +
           ". Run it as root, e.g. sudo fogstudio-cli testbed FILE. Nothing was set up.";
}

std::string boxName(pid_t owner) { return "fsb" + std::to_string(owner); }

std::vector<pid_t> boxesOf(pid_t owner) {
    std::vector<pid_t> pids;
    for (const auto& [pid, o] : allBoxes())
        if (o == owner) pids.push_back(pid);
    return pids;
}

int cleanLeftovers() {
    std::vector<pid_t> ended;
    for (const auto& [pid, owner] : allBoxes()) {
        if (owner == ::getpid() || processRuns(owner)) continue;
        if (::kill(pid, SIGKILL) == 0) ended.push_back(pid);
    }
    // Not our children: wait until they are gone (their namespaces go with them).
    for (int i = 0; i < 200; ++i) {
        bool any = false;
        for (pid_t p : ended) any = any || (::kill(p, 0) == 0 && !isZombie("/proc/" + std::to_string(p)));
        if (!any) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return static_cast<int>(ended.size());
}

unsigned long netnsInode(pid_t pid) {
    struct stat st {};
    const std::string path = pid > 0 ? "/proc/" + std::to_string(pid) + "/ns/net" : "/proc/self/ns/net";
    if (::stat(path.c_str(), &st) != 0) return 0;
    return static_cast<unsigned long>(st.st_ino);
}

/// The file a command name runs: `name` itself when it has a slash, else the first executable
/// of that name in PATH and then in the system directories, where ip and tc live (a root
/// shell's PATH need not have /usr/sbin: a service's or a container's often lacks it).
static std::string toolPath(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
    dirs += ":/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin";
    std::size_t from = 0;
    while (from <= dirs.size()) {
        const std::size_t colon = std::min(dirs.find(':', from), dirs.size());
        const std::string dir = dirs.substr(from, colon - from);
        if (!dir.empty()) {
            const std::string path = dir + "/" + name;
            if (::access(path.c_str(), X_OK) == 0) return path;
        }
        from = colon + 1;
    }
    throw TestbedError("the testbed needs '" + name + "' (Debian package iproute2), found neither in PATH nor in " +
                       "/usr/sbin or /sbin. Nothing was set up.");
}

CommandResult runIn(pid_t nsPid, const std::vector<std::string>& argv, const std::string& input) {
    if (argv.empty()) throw TestbedError("runIn: no command");
    // Everything the child needs is prepared before fork.
    const std::string program = toolPath(argv[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const std::string nsPath = "/proc/" + std::to_string(nsPid) + "/ns/net";
    int nsFd = -1;
    if (nsPid > 0) {
        nsFd = ::open(nsPath.c_str(), O_RDONLY | O_CLOEXEC);
        if (nsFd < 0)
            throw TestbedError("cannot open the namespace of process " + std::to_string(nsPid) + " for '" +
                               joined(argv) + "': " + std::strerror(errno));
    }
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
        throw TestbedError("pipe for '" + joined(argv) + "': " + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw TestbedError("fork for '" + joined(argv) + "': " + std::strerror(errno));
    if (pid == 0) {
        if (nsFd >= 0 && ::setns(nsFd, CLONE_NEWNET) != 0) _exit(126);
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::execv(program.c_str(), args.data());
        _exit(127);
    }
    if (nsFd >= 0) ::close(nsFd);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    CommandResult r;
    std::size_t written = 0;
    int inFd = in[1];
    if (input.empty()) closeFd(inFd);
    int outFd = out[0], errFd = err[0];
    char buf[4096];
    while (outFd >= 0 || errFd >= 0 || inFd >= 0) {
        pollfd fds[3];
        int n = 0;
        if (inFd >= 0) fds[n++] = {inFd, POLLOUT, 0};
        if (outFd >= 0) fds[n++] = {outFd, POLLIN, 0};
        if (errFd >= 0) fds[n++] = {errFd, POLLIN, 0};
        if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int k = 0; k < n; ++k) {
            if (!fds[k].revents) continue;
            if (fds[k].fd == inFd) {
                const ssize_t w = ::write(inFd, input.data() + written, input.size() - written);
                if (w > 0) written += static_cast<std::size_t>(w);
                if (w < 0 || written == input.size()) closeFd(inFd);
                continue;
            }
            const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
            if (got <= 0) {
                if (fds[k].fd == outFd) closeFd(outFd);
                else closeFd(errFd);
                continue;
            }
            (fds[k].fd == outFd ? r.out : r.err).append(buf, static_cast<std::size_t>(got));
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r.exitCode == 126 && nsPid > 0) r.err = "cannot enter the namespace of process " + std::to_string(nsPid);
    if (r.exitCode == 127 && r.err.empty()) r.err = std::string("cannot run ") + argv[0] + " (not installed?)";
    return r;
}

std::string mustRun(pid_t nsPid, const std::vector<std::string>& argv, const std::string& input) {
    const CommandResult r = runIn(nsPid, argv, input);
    if (r.exitCode != 0) {
        std::string what = "'" + joined(argv) + "'";
        if (!input.empty()) {
            // A batch: name the line the tool stopped at when it says which.
            what += " with input:\n" + input;
        }
        std::string err = r.err;
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        throw TestbedError("command " + what + (input.empty() ? "" : "\n") + " failed (exit " +
                           std::to_string(r.exitCode) + ")" + (err.empty() ? "" : ": " + err));
    }
    return r.out;
}

// ---- Box ----

Box Box::spawn(const std::string& label, Role role, void* context) {
    int ready[2], go[2], result[2];
    if (::pipe2(ready, O_CLOEXEC) || ::pipe2(go, O_CLOEXEC) || ::pipe2(result, O_CLOEXEC))
        throw TestbedError("pipe for box " + label + ": " + std::strerror(errno));
    const pid_t owner = ::getpid();
    const std::string name = boxName(owner);
    const pid_t pid = ::fork();
    if (pid < 0) throw TestbedError("fork for box " + label + ": " + std::strerror(errno));
    if (pid == 0) {
        // The child: die with the owner, ignore the terminal's Ctrl-C (the owner ends us).
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != owner) _exit(1);
        ::prctl(PR_SET_NAME, name.c_str());
        ::signal(SIGINT, SIG_IGN);
        ::signal(SIGTERM, SIG_DFL);
        ::signal(SIGPIPE, SIG_IGN);
        ::close(ready[0]);
        ::close(go[1]);
        ::close(result[0]);
        auto fail = [&](const char* what) {
            const std::string m = std::string("E") + what + ": " + std::strerror(errno);
            if (::write(ready[1], m.data(), m.size()) < 0) {
            }
            _exit(1);
        };
        if (::unshare(CLONE_NEWNET) != 0) fail("unshare(CLONE_NEWNET)");
        // Every box may route for the boxes under it (relays, cells).
        const int fwd = ::open("/proc/sys/net/ipv4/ip_forward", O_WRONLY | O_CLOEXEC);
        if (fwd < 0 || ::write(fwd, "1", 1) != 1) fail("net.ipv4.ip_forward");
        ::close(fwd);
        if (::write(ready[1], "R", 1) != 1) _exit(1);
        ::close(ready[1]);
        char c = 0;
        if (::read(go[0], &c, 1) != 1) _exit(0); // the owner gave up before go
        int status = 0;
        if (role) status = role(context, result[1]);
        ::close(result[1]);
        (void)status;
        // Hold the namespace (the owner reads its counters, then ends us).
        for (;;) ::pause();
    }
    ::close(ready[1]);
    ::close(go[0]);
    ::close(result[1]);
    Box b;
    b.pid_ = pid;
    b.goFd_ = go[1];
    b.resultFd_ = result[0];
    b.label_ = label;
    std::string reply;
    char buf[512];
    for (;;) {
        const ssize_t n = ::read(ready[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        reply.append(buf, static_cast<std::size_t>(n));
        if (reply == "R") break;
    }
    ::close(ready[0]);
    if (reply != "R")
        throw TestbedError("box " + label + " could not make its network namespace" +
                           (reply.size() > 1 ? ": " + reply.substr(1) : std::string(" (it ended)")));
    // Traffic must stay inside namespaces we made: never configure the owner's namespace.
    const unsigned long ours = netnsInode(0), its = netnsInode(pid);
    if (its == 0 || its == ours)
        throw TestbedError("box " + label + " is not in a namespace of its own; nothing configured");
    return b;
}

Box::Box(Box&& o) noexcept { *this = std::move(o); }

Box& Box::operator=(Box&& o) noexcept {
    if (this != &o) {
        end();
        pid_ = o.pid_;
        goFd_ = o.goFd_;
        resultFd_ = o.resultFd_;
        label_ = std::move(o.label_);
        o.pid_ = -1;
        o.goFd_ = o.resultFd_ = -1;
    }
    return *this;
}

Box::~Box() { end(); }

void Box::go() {
    if (goFd_ < 0) return;
    if (::write(goFd_, "G", 1) != 1) {
    }
    closeFd(goFd_);
}

bool Box::alive(int* status) {
    if (pid_ <= 0) return false;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == 0) return true;
    if (status) *status = st;
    if (r == pid_) pid_ = -1;
    return false;
}

void Box::end() {
    closeFd(goFd_);
    closeFd(resultFd_);
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }
}

KernelFeatures detectKernelFeatures() {
    Box scratch = Box::spawn("qdisc probe", nullptr, nullptr);
    const pid_t p = scratch.pid();
    mustRun(p, {"ip", "link", "add", "name", "probe0", "type", "veth", "peer", "name", "probe1"});
    auto tries = [&](const std::vector<std::vector<std::string>>& cmds) {
        bool ok = true;
        for (const auto& c : cmds) ok = ok && runIn(p, c).exitCode == 0;
        runIn(p, {"tc", "qdisc", "del", "dev", "probe0", "root"});
        return ok;
    };
    KernelFeatures f;
    f.tbf = tries({{"tc", "qdisc", "add", "dev", "probe0", "root", "handle", "1:", "tbf", "rate", "1mbit", "burst",
                    "3000", "limit", "100000"}});
    f.htb = tries({{"tc", "qdisc", "add", "dev", "probe0", "root", "handle", "1:", "htb", "default", "1"}});
    f.netem = tries({{"tc", "qdisc", "add", "dev", "probe0", "root", "handle", "1:", "netem", "delay", "1ms", "limit",
                      "100000"},
                     {"tc", "qdisc", "add", "dev", "probe0", "parent", "1:1", "handle", "10:", "tbf", "rate", "1mbit",
                      "burst", "3000", "limit", "100000"}});
    return f;
}

} // namespace fog::testbed
