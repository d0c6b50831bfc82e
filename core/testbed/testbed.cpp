// Plays a plan on namespaces, veth pairs and tc (testbed.h). The processes are forked from
// this one (Box, netns.h): the aggregator and the trainers find the plan in their copy of
// this process's memory and talk TCP; the owner configures links from outside and reads the
// results from a pipe per process.

#include "core/testbed/testbed.h"
#include "core/policies/aggregation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace fog::testbed {

namespace {

constexpr int kPort = 7070;
constexpr std::uint32_t kMagic = 0x46534254; // "FSBT"

/// The header before every message on the wire (payload bytes follow).
struct Header {
    std::uint32_t magic = kMagic;
    std::uint32_t kind = 0; ///< 1 hello (job: the trainer's box), 2 model, 3 update, 4 bye
    std::uint32_t round = 0;
    std::uint32_t job = 0;
    std::uint64_t payload = 0; ///< bytes after the header
    std::uint64_t reply = 0;   ///< model: the update's payload bytes; update: the samples trained on
    std::int64_t holdNs = 0;   ///< model: how long the trainer holds it before replying; update: the loss's bits
};
static_assert(sizeof(Header) == kMessageHeaderBytes, "the wire header is 40 bytes");
constexpr double kHeaderBytes = sizeof(Header);

std::int64_t nowNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

void sleepUntilNs(std::int64_t t) {
    timespec ts{};
    ts.tv_sec = t / 1000000000LL;
    ts.tv_nsec = t % 1000000000LL;
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

std::string address(int box) {
    const int k = box + 1;
    return "10.77." + std::to_string(k >> 8) + "." + std::to_string(k & 255);
}

bool writeAll(int fd, const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool readAll(int fd, void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    while (n > 0) {
        const ssize_t r = ::read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

/// Sends `bytes` of zeros (the payload); false when the connection broke.
bool sendPayload(int fd, std::uint64_t bytes) {
    static const std::vector<char> zeros(1 << 16, 0);
    while (bytes > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, zeros.size()));
        if (!writeAll(fd, zeros.data(), n)) return false;
        bytes -= n;
    }
    return true;
}

/// A model or update when the processes train: its parameters as 4-byte floats, then zeros
/// up to the emulator's byte count (`bytes`, at least the floats: buildPlan checks).
bool sendParams(int fd, const Params& p, std::uint64_t bytes) {
    const std::uint64_t floats = p.size() * sizeof(float);
    return writeAll(fd, p.data(), static_cast<std::size_t>(floats)) && sendPayload(fd, bytes - floats);
}

bool skipPayload(int fd, std::uint64_t bytes);

/// Reads a payload of `bytes` whose first `n` floats are parameters.
bool readParams(int fd, Params& p, std::size_t n, std::uint64_t bytes) {
    const std::uint64_t floats = n * sizeof(float);
    if (bytes < floats) return false;
    p.resize(n);
    return readAll(fd, p.data(), static_cast<std::size_t>(floats)) && skipPayload(fd, bytes - floats);
}

bool skipPayload(int fd, std::uint64_t bytes) {
    std::vector<char> buf(1 << 16);
    while (bytes > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, buf.size()));
        const ssize_t r = ::read(fd, buf.data(), n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        bytes -= static_cast<std::uint64_t>(r);
    }
    return true;
}

// ---- Results from the processes: length-prefixed records on a pipe ----

struct Out {
    std::string buf;
    template <class T> void put(T v) { buf.append(reinterpret_cast<const char*>(&v), sizeof v); }
};

void sendRecord(int fd, char type, const std::string& body) {
    const std::uint64_t n = body.size() + 1;
    writeAll(fd, &n, sizeof n);
    writeAll(fd, &type, 1);
    writeAll(fd, body.data(), body.size());
}

struct In {
    const std::string& s;
    std::size_t at = 0;
    template <class T> T get() {
        T v{};
        if (at + sizeof v > s.size()) throw TestbedError("a testbed process sent a short record");
        std::memcpy(&v, s.data() + at, sizeof v);
        at += sizeof v;
        return v;
    }
};

/// A job's times as an aggregator or a trainer process reports them: its round and index in
/// the plan, when its model was in and when its update left (steady-clock ns).
struct JobTimes {
    std::uint32_t round = 0, job = 0;
    std::int64_t received = 0, sent = 0;
};

JobTimes readJobTimes(In& in) {
    JobTimes t;
    t.round = in.get<std::uint32_t>();
    t.job = in.get<std::uint32_t>();
    t.received = in.get<std::int64_t>();
    t.sent = in.get<std::int64_t>();
    return t;
}

/// Reads whole records from a process's pipe as they come.
struct RecordReader {
    std::string pending;
    bool eof = false;
    /// Reads what is there (non-blocking after poll); appends complete records.
    void feed(int fd, std::vector<std::pair<char, std::string>>& records) {
        char buf[65536];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) {
            if (n == 0 || errno != EINTR) eof = true;
            return;
        }
        pending.append(buf, static_cast<std::size_t>(n));
        for (;;) {
            if (pending.size() < 8) return;
            std::uint64_t len = 0;
            std::memcpy(&len, pending.data(), 8);
            if (pending.size() < 8 + len) return;
            records.emplace_back(pending[8], pending.substr(9, len - 1));
            pending.erase(0, 8 + len);
        }
    }
};

// ---- The processes' roles ----

struct RoleContext {
    const TestbedPlan* plan = nullptr;
    int box = -1;
    double dilation = 1.0;
    bool userLatency = false;
    bool storeRelays = false; ///< relays are applications that store and forward
    const PlanTraining* training = nullptr; ///< the processes train (null: they move bytes only)
    bool computeReal = false; ///< a trainer sends its update when its training is done (not paced)
};

/// Where a child's messages (a trainer's, or an intermediate aggregator's to its parent) are
/// stored whole on their way: itself, every relay above it when relays store and forward, its
/// aggregator. Consecutive points are one TCP connection.
std::vector<int> storePoints(const RoleContext& c, int child) {
    std::vector<int> points;
    const int top = c.plan->aggregatorOf(child);
    for (int b : c.plan->pathToRoot(child)) {
        const PlanBox& pb = c.plan->boxes[static_cast<std::size_t>(b)];
        const bool relay = b != child && pb.node >= 0 && !pb.trains && !pb.aggregates;
        if (b == child || b == top || (c.storeRelays && relay)) points.push_back(b);
        if (b == top) break;
    }
    return points;
}

/// The user-space latency (ns) of the links from box `lower` up to box `upper`, dilated.
std::int64_t segmentLatencyNs(const RoleContext& c, int lower, int upper) {
    if (!c.userLatency) return 0;
    double ms = 0.0;
    for (int b = lower; b >= 0 && b != upper; b = c.plan->boxes[static_cast<std::size_t>(b)].parent) {
        const PlanBox& pb = c.plan->boxes[static_cast<std::size_t>(b)];
        if (pb.limited) ms += pb.latencyMs;
    }
    return static_cast<std::int64_t>(ms * 1e6 * c.dilation);
}

/// A socket listening on kPort on every address of this namespace; -1 (errno set) when not.
int listenOnPort() {
    const int ls = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in any{};
    any.sin_family = AF_INET;
    any.sin_port = htons(kPort);
    any.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(ls, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 || ::listen(ls, 256) != 0) {
        const int e = errno;
        ::close(ls);
        errno = e;
        return -1;
    }
    return ls;
}

/// Connects from this box's address to `box`'s port, retrying while the routes come up.
int connectTo(int self, int box, std::string& error) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in me{};
    me.sin_family = AF_INET;
    ::inet_pton(AF_INET, address(self).c_str(), &me.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) {
        error = "bind " + address(self) + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(kPort);
    ::inet_pton(AF_INET, address(box).c_str(), &to.sin_addr);
    const std::int64_t giveUp = nowNs() + 20'000'000'000LL;
    while (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
        if (nowNs() > giveUp) {
            error = "cannot connect to " + address(box) + ": " + std::strerror(errno);
            ::close(fd);
            return -1;
        }
        ::usleep(20000);
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int fail(int out, const std::string& message) {
    sendRecord(out, 'E', message);
    return 1;
}

int trainerRole(void* context, int out) {
    const RoleContext& c = *static_cast<RoleContext*>(context);
    // The aggregator, or the relay above that stores and forwards.
    const int upstream = storePoints(c, c.box).at(1);
    std::string error;
    const int fd = connectTo(c.box, upstream, error);
    if (fd < 0) return fail(out, error);
    Header hello;
    hello.kind = 1;
    hello.job = static_cast<std::uint32_t>(c.box);
    if (!writeAll(fd, &hello, sizeof hello)) return fail(out, "hello to the aggregator failed");
    const PlanTraining* tr = c.training;
    if (tr) useSingleThreadedKernels(); // as the emulator's workers train
    Out rec;
    std::uint32_t count = 0;
    OptimizerStatePtr state; // training.optimizer_state keep: this trainer's, between its jobs
    Params model;
    for (;;) {
        Header h;
        if (!readAll(fd, &h, sizeof h) || h.magic != kMagic) return fail(out, "the aggregator's connection broke");
        if (h.kind == 4) break;
        const std::vector<PlanRound>& rounds = c.plan->roundsAbove(c.box);
        const PlanJob* job = h.round < rounds.size() && h.job < rounds[h.round].jobs.size()
                                 ? &rounds[h.round].jobs[h.job]
                                 : nullptr;
        const bool train = tr && job && job->work;
        if (train ? !readParams(fd, model, tr->parameters, h.payload) : !skipPayload(fd, h.payload))
            return fail(out, "the model's bytes stopped coming");
        const std::int64_t received = nowNs();
        // A job the prediction lost: nothing goes back (its trainer went offline and was
        // stopped meanwhile, or its round ended without it).
        if (job && job->lost) continue;
        // The job's local work, as the emulator's worker ran it, from the model that came in.
        LocalResult result;
        std::int64_t trainNs = -1;
        auto trainNow = [&] {
            LocalJob lj = *job->work;
            lj.start = std::make_shared<Params>(model);
            if (lj.returnState) lj.optimizerState = state;
            const std::int64_t from = nowNs();
            result = tr->learner->run(lj);
            trainNs = nowNs() - from;
            if (result.optimizerState) state = result.optimizerState;
        };
        // Paced: train, then hold until the compute time has passed; real: the latency's
        // hold only, then train and send.
        if (train && !c.computeReal) trainNow();
        const std::uint32_t late = train && !c.computeReal && trainNs > h.holdNs ? 1u : 0u;
        sleepUntilNs(received + h.holdNs);
        if (train && c.computeReal) trainNow();
        if (train && result.update.size() != tr->parameters)
            return fail(out, "the local work gave " + std::to_string(result.update.size()) + " values for a model of " +
                                 std::to_string(tr->parameters));
        const std::int64_t sent = nowNs();
        Header u;
        u.kind = 3;
        u.round = h.round;
        u.job = h.job;
        u.payload = h.reply;
        if (train) {
            u.reply = static_cast<std::uint64_t>(result.samples);
            std::memcpy(&u.holdNs, &result.meanLoss, sizeof u.holdNs);
        }
        if (!writeAll(fd, &u, sizeof u) || !(train ? sendParams(fd, result.update, h.reply) : sendPayload(fd, h.reply)))
            return fail(out, "the update could not be sent");
        rec.put(h.round);
        rec.put(h.job);
        rec.put(received);
        rec.put(sent);
        rec.put(trainNs);
        rec.put(late);
        rec.put(static_cast<std::int64_t>(result.samples));
        rec.put(result.meanLoss);
        ++count;
    }
    Out all;
    all.put(count);
    sendRecord(out, 'T', all.buf + rec.buf);
    ::close(fd);
    return 0;
}

/// What a round came to, as an aggregator's process measured it.
struct RoundOutcome {
    std::int64_t t0 = 0, end = 0;
    std::vector<std::int64_t> sentAt, arrivals;
    std::vector<char> taken; ///< aggregated
    double trainLoss = kNaN;
    bool sameUpdates = true; ///< the prediction's updates were taken
    // Summed over the contributions aggregated, one by one from the values they held before
    // the round (a tiered session's running sums, Tiered::completeRound: the same additions
    // in the same order, so the same bits).
    std::int64_t samples = 0;
    double lossSum = 0.0, lossSamples = 0.0;
};

/// The record of a round (to the owner): its times and, per job, when its model left, when
/// its update was in and whether it was aggregated.
void putRound(Out& rec, std::size_t ri, const RoundOutcome& o) {
    rec.put(static_cast<std::uint32_t>(ri));
    rec.put(o.t0);
    rec.put(o.end);
    rec.put(static_cast<std::uint32_t>(o.taken.size()));
    for (std::size_t ji = 0; ji < o.taken.size(); ++ji) {
        rec.put(o.sentAt[ji]);
        rec.put(o.arrivals[ji]);
        rec.put(static_cast<std::uint32_t>(o.taken[ji]));
    }
    rec.put(o.trainLoss);
    rec.put(static_cast<std::uint32_t>(o.sameUpdates ? 1 : 0));
}

/// An aggregator's side towards its children (the root's, or an intermediate aggregator's in
/// a tiered tree): one persistent connection per child (a trainer, or a child aggregator),
/// a reader thread each, and the rounds played over them as the policy plays them.
class Children {
public:
    /// `rounds`: the list the rounds are in (the plan's rounds or sub-rounds); `mine`: the
    /// indices of this aggregator's.
    Children(const RoleContext& c, const std::vector<PlanRound>& rounds, std::vector<std::size_t> mine)
        : c_(c), rounds_(rounds), mine_(std::move(mine)), tr_(c.training) {
        for (std::size_t ri : mine_)
            for (const auto& j : rounds_[ri].jobs) boxes_.insert(j.trainerBox);
        sentAtAll_.resize(rounds_.size());
    }
    ~Children() { abort(); }

    /// Listens and waits until every child has connected (hello: its box).
    bool accept(std::string& error) {
        const int one = 1;
        const int ls = listenOnPort();
        if (ls < 0) {
            error = std::string("listen: ") + std::strerror(errno);
            return false;
        }
        const std::int64_t giveUp = nowNs() + 25'000'000'000LL;
        while (conn_.size() < boxes_.size()) {
            pollfd p{ls, POLLIN, 0};
            if (::poll(&p, 1, 200) <= 0) {
                if (nowNs() > giveUp) {
                    error = std::to_string(boxes_.size() - conn_.size()) + " children (trainers or aggregators) did not connect";
                    ::close(ls);
                    return false;
                }
                continue;
            }
            const int fd = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            Header h;
            if (!readAll(fd, &h, sizeof h) || h.magic != kMagic || h.kind != 1) {
                ::close(fd);
                continue;
            }
            conn_[static_cast<int>(h.job)] = fd;
        }
        ::close(ls);
        // One writer at a time per connection: a lost job's model may still be going down (its
        // trainer stopped) when the trainer's next job starts.
        for (const auto& [box, fd] : conn_) writing_[box] = std::make_unique<std::mutex>();
        // Arrivals, from one reader thread per child.
        for (const auto& [box, fd] : conn_) {
            readers_.emplace_back([this, box = box, fd = fd] {
                for (;;) {
                    Header h;
                    Arrived a;
                    if (!readAll(fd, &h, sizeof h) || h.magic != kMagic ||
                        !(tr_ ? readParams(fd, a.update, tr_->parameters, h.payload) : skipPayload(fd, h.payload))) {
                        std::lock_guard<std::mutex> g(m_);
                        if (broken_.empty() && !ending_) broken_ = c_.plan->boxes[static_cast<std::size_t>(box)].label;
                        cv_.notify_all();
                        return;
                    }
                    a.ns = nowNs();
                    a.samples = static_cast<std::int64_t>(h.reply);
                    std::memcpy(&a.loss, &h.holdNs, sizeof a.loss);
                    std::lock_guard<std::mutex> g(m_);
                    if (h.round >= roundNow_) arrived_[{h.round, h.job}] = std::move(a);
                    cv_.notify_all();
                }
            });
        }
        return true;
    }

    /// Plays round `ri` from `model` (what every job trains from) and aggregates into it;
    /// `announce` (the root's): the owner gets the round's start, to play its availability
    /// changes from. False when a connection broke (broken() names it).
    bool play(std::size_t ri, ServerModel& model, RoundOutcome& o, int announce) {
        const PlanRound& r = rounds_[ri];
        const double D = c_.dilation;
        const std::int64_t t0 = nowNs();
        const ParamsPtr current = model.params();
        if (announce >= 0) {
            Out start;
            start.put(static_cast<std::uint32_t>(ri));
            start.put(t0);
            sendRecord(announce, 'S', start.buf);
        }
        sentAtAll_[ri] = std::make_unique<std::atomic<std::int64_t>[]>(r.jobs.size());
        std::atomic<std::int64_t>* sentAt = sentAtAll_[ri].get();
        for (std::size_t ji = 0; ji < r.jobs.size(); ++ji) sentAt[ji] = 0;
        std::vector<std::thread> senders;
        for (std::size_t ji = 0; ji < r.jobs.size(); ++ji) {
            // What is local to the round is captured by value.
            senders.emplace_back([this, ji, ri, t0, current, round = &r, sent = &sentAt[ji], D] {
                const PlanJob& j = round->jobs[ji];
                sleepUntilNs(t0 + static_cast<std::int64_t>(j.offsetS * D * 1e9));
                Header h;
                h.kind = 2;
                h.round = static_cast<std::uint32_t>(ri);
                h.job = static_cast<std::uint32_t>(ji);
                h.payload = static_cast<std::uint64_t>(std::llround(j.downBytes));
                h.reply = j.lost ? 0 : static_cast<std::uint64_t>(std::llround(j.upBytes));
                // (A session from the initial model starts at once: nothing comes down.)
                h.holdNs = j.fromInitial ? 0
                                         : (c_.computeReal ? 0 : static_cast<std::int64_t>(j.computeS * D * 1e9)) +
                                               modelLatencyNs(j.trainerBox);
                const int fd = conn_.at(j.trainerBox);
                std::lock_guard<std::mutex> w(*writing_.at(j.trainerBox));
                *sent = nowNs();
                const bool params = tr_ && (j.work || (j.session() && !j.fromInitial));
                if (!writeAll(fd, &h, sizeof h) ||
                    !(params ? sendParams(fd, *current, h.payload) : sendPayload(fd, h.payload))) {
                    std::lock_guard<std::mutex> g(m_);
                    if (broken_.empty()) broken_ = c_.plan->boxes[static_cast<std::size_t>(j.trainerBox)].label;
                    cv_.notify_all();
                }
            });
        }
        o.t0 = t0;
        o.end = t0;
        o.arrivals.assign(r.jobs.size(), 0);
        o.taken.assign(r.jobs.size(), 0);
        o.sameUpdates = true;
        bool ok = true;
        {
            std::unique_lock<std::mutex> g(m_);
            auto key = [&](std::size_t ji) {
                return std::make_pair(static_cast<std::uint32_t>(ri), static_cast<std::uint32_t>(ji));
            };
            // An update that can count: not lost, and (training) from a job with its work.
            auto eligible = [&](std::size_t ji) {
                const PlanJob& j = r.jobs[ji];
                return !j.lost && (!tr_ || !j.cancelled || j.work);
            };
            // The round waits for its first `needed` updates (all of them but n-sync's), or
            // until none is outstanding, or until its deadline.
            auto over = [&] {
                if (!broken_.empty()) return true;
                std::size_t in = 0, open = 0;
                for (std::size_t ji = 0; ji < r.jobs.size(); ++ji)
                    if (eligible(ji)) ++(arrived_.count(key(ji)) ? in : open);
                return in >= static_cast<std::size_t>(r.needed) || open == 0;
            };
            const bool hasDeadline = r.deadlineS > 0;
            const std::int64_t deadlineNs = t0 + static_cast<std::int64_t>(r.deadlineS * D * 1e9);
            // steady_clock is CLOCK_MONOTONIC, nowNs()'s clock.
            if (hasDeadline)
                cv_.wait_until(g, std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadlineNs)), over);
            else
                cv_.wait(g, over);
            ok = broken_.empty();
            if (ok) {
                // The first to arrive (after their last stretch's latency) are taken, by the
                // deadline if there is one; later ones are discarded when they come.
                std::vector<std::pair<std::int64_t, std::size_t>> in;
                for (std::size_t ji = 0; ji < r.jobs.size(); ++ji)
                    if (eligible(ji) && arrived_.count(key(ji))) {
                        const std::int64_t t = arrived_.at(key(ji)).ns + latencyNs(r.jobs[ji].trainerBox);
                        if (!hasDeadline || t <= deadlineNs) in.emplace_back(t, ji);
                    }
                std::sort(in.begin(), in.end());
                if (in.size() > static_cast<std::size_t>(r.needed)) in.resize(static_cast<std::size_t>(r.needed));
                for (const auto& [t, ji] : in) {
                    o.taken[ji] = 1;
                    o.arrivals[ji] = t;
                    o.end = std::max(o.end, t);
                }
                // A lost job ends a round that waits for all its updates no earlier than the
                // loss, as the policy's onLost.
                bool anyCancelled = false;
                for (const PlanJob& j : r.jobs) anyCancelled = anyCancelled || j.cancelled;
                for (std::size_t ji = 0; ji < r.jobs.size(); ++ji) {
                    const PlanJob& j = r.jobs[ji];
                    if (!j.lost) continue;
                    o.arrivals[ji] = t0 + static_cast<std::int64_t>((j.lostS - r.startS) * D * 1e9);
                    if (!anyCancelled || hasDeadline) o.end = std::max(o.end, o.arrivals[ji]);
                }
                // A deadline ends the round at it when an update is still out, and no later in
                // any case (a loss after it does not hold the round).
                if (hasDeadline) {
                    bool allIn = true;
                    for (std::size_t ji = 0; ji < r.jobs.size(); ++ji)
                        allIn = allIn && (r.jobs[ji].lost || o.taken[ji] != 0);
                    o.end = allIn ? std::min(o.end, deadlineNs) : deadlineNs;
                }
                for (std::size_t ji = 0; ji < r.jobs.size(); ++ji)
                    o.sameUpdates =
                        o.sameUpdates && (o.taken[ji] != 0) == (!r.jobs[ji].lost && !r.jobs[ji].cancelled);
            }
            roundNow_ = static_cast<std::uint32_t>(ri + 1); // later updates of this round are discarded
        }
        // A model whose update was not taken may still be going down (its trainer busy with
        // an earlier job, or stopped): its sender is not waited for.
        for (std::size_t ji = 0; ji < senders.size(); ++ji) {
            if (r.jobs[ji].lost || !o.taken[ji]) lingering_.push_back(std::move(senders[ji]));
            else senders[ji].join();
        }
        o.sentAt.resize(r.jobs.size());
        for (std::size_t ji = 0; ji < r.jobs.size(); ++ji) o.sentAt[ji] = sentAt[ji].load();
        if (!ok) return false;
        sleepUntilNs(o.end); // a user-space latency: the last update is in only now
        if (tr_) aggregate(ri, model, o);
        {
            // The round's updates are no longer needed (a late one is not kept).
            std::lock_guard<std::mutex> g(m_);
            for (std::size_t ji = 0; ji < r.jobs.size(); ++ji)
                arrived_.erase({static_cast<std::uint32_t>(ri), static_cast<std::uint32_t>(ji)});
        }
        return true;
    }

    /// The rounds are over: lost jobs' models still on their way, then the end to every child,
    /// which closes its connection.
    void finish() {
        for (auto& t : lingering_) t.join();
        lingering_.clear();
        {
            std::lock_guard<std::mutex> g(m_);
            ending_ = true;
        }
        for (const auto& [box, fd] : conn_) {
            Header bye;
            bye.kind = 4;
            writeAll(fd, &bye, sizeof bye);
        }
        for (const auto& [box, fd] : conn_) ::shutdown(fd, SHUT_WR);
        for (auto& t : readers_) t.join(); // each ends when its child closes
        readers_.clear();
        for (const auto& [box, fd] : conn_) ::close(fd);
        conn_.clear();
    }

    /// After a failure: every connection is cut and every thread joined.
    void abort() {
        for (const auto& [box, fd] : conn_) ::shutdown(fd, SHUT_RDWR);
        for (auto& t : readers_) t.join();
        for (auto& t : lingering_) t.join();
        readers_.clear();
        lingering_.clear();
        for (const auto& [box, fd] : conn_) ::close(fd);
        conn_.clear();
    }

    std::string broken() {
        std::lock_guard<std::mutex> g(m_);
        return broken_;
    }

private:
    struct Arrived {
        std::int64_t ns = 0;
        Params update;
        std::int64_t samples = 0;
        double loss = 0.0;
    };

    // User-space latency of the last stretch of a child's path: into the child for its model
    // (from the store point above it), into this aggregator for its update.
    std::int64_t modelLatencyNs(int child) const {
        const auto points = storePoints(c_, child);
        return segmentLatencyNs(c_, child, points.at(1));
    }
    std::int64_t latencyNs(int child) const {
        const auto points = storePoints(c_, child);
        return segmentLatencyNs(c_, points.at(points.size() - 2), points.back());
    }

    /// Aggregation as the policy does it (RoundPolicy::finishRound; Tiered::completeRound,
    /// whose children's changes are added and its trainers' gradients stepped with), the
    /// updates in the prediction's order so that every sum is the same bits (when the updates
    /// taken are not the prediction's, in their order of arrival).
    void aggregate(std::size_t ri, ServerModel& model, RoundOutcome& o) {
        const PlanRound& r = rounds_[ri];
        std::vector<std::size_t> order(r.jobs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        if (o.sameUpdates)
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return r.jobs[a].aggregationRank < r.jobs[b].aggregationRank;
            });
        else
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return o.arrivals[a] != o.arrivals[b] ? o.arrivals[a] < o.arrivals[b] : a < b;
            });
        if (r.averages) {
            average(ri, model, o, order);
            return;
        }
        std::vector<Contribution> results;
        std::vector<char> fromSession;
        {
            std::lock_guard<std::mutex> g(m_);
            for (std::size_t ji : order) {
                const PlanJob& j = r.jobs[ji];
                if (!o.taken[ji]) continue;
                Arrived& a = arrived_.at({static_cast<std::uint32_t>(ri), static_cast<std::uint32_t>(ji)});
                const int steps = j.work ? static_cast<int>(j.work->batchSizes.size()) : 0;
                results.push_back({c_.plan->boxes[static_cast<std::size_t>(j.trainerBox)].node, a.samples, a.loss, 0,
                                   std::move(a.update), steps, steps});
                fromSession.push_back(j.session() ? 1 : 0);
            }
        }
        o.trainLoss = meanLoss(results);
        const bool gradient =
            r.aggregatorBox == 0 ? tr_->gradient : tr_->tiers.at(r.aggregatorBox).gradient;
        std::vector<Contribution> gradients, changes;
        for (std::size_t k = 0; k < results.size(); ++k) {
            Contribution& c = results[k];
            o.samples += c.samples;
            if (!std::isnan(c.loss)) {
                o.lossSum += c.loss * static_cast<double>(c.samples);
                o.lossSamples += static_cast<double>(c.samples);
            }
            (gradient && !fromSession[k] ? gradients : changes).push_back(std::move(c));
        }
        // A round in which every trainer was lost changes nothing (RoundPolicy::finishRound).
        if (!gradients.empty())
            model.applyGradient(meanUpdate(gradients), r.learningRate, tr_->momentum, tr_->weightDecay);
        if (!changes.empty()) model.addDelta(sampleWeightedUpdate(changes));
    }

    /// Hierarchical FL's global round (TwoLevelPolicy::averageGroups and reportGlobal): the
    /// model becomes the weighted average of the children's models, in the order of the groups;
    /// the training loss is the groups' loss sums over their sample sums.
    void average(std::size_t ri, ServerModel& model, RoundOutcome& o, const std::vector<std::size_t>& order) {
        const PlanRound& r = rounds_[ri];
        std::vector<ParamsPtr> models;
        std::vector<double> weights;
        double sum = 0.0, samples = 0.0;
        {
            std::lock_guard<std::mutex> g(m_);
            for (std::size_t ji : order) {
                if (!o.taken[ji]) continue;
                Arrived& a = arrived_.at({static_cast<std::uint32_t>(ri), static_cast<std::uint32_t>(ji)});
                models.push_back(std::make_shared<Params>(std::move(a.update)));
                weights.push_back(r.jobs[ji].averageWeight);
                sum += a.loss; // a group's loss sum (Contribution::loss carries it here)
                samples += static_cast<double>(a.samples);
            }
        }
        o.trainLoss = samples > 0 ? sum / samples : kNaN;
        model.set(std::make_shared<Params>(weightedModelAverage(models, weights)));
    }

    const RoleContext& c_;
    const std::vector<PlanRound>& rounds_;
    std::vector<std::size_t> mine_;
    const PlanTraining* tr_;
    std::set<int> boxes_;
    std::map<int, int> conn_; // child box -> socket
    std::map<int, std::unique_ptr<std::mutex>> writing_;
    std::vector<std::thread> readers_, lingering_; // lingering: the senders of lost jobs' models
    std::mutex m_;
    std::condition_variable cv_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, Arrived> arrived_; // (round, job)
    std::atomic<std::uint32_t> roundNow_{0}; // updates of the rounds before are late: discarded
    std::string broken_;
    bool ending_ = false; // the rounds are over: a child's closed connection is its end
    // Per round, when each model left (kept for the whole run: a lost job's sender may
    // outlive its round).
    std::vector<std::unique_ptr<std::atomic<std::int64_t>[]>> sentAtAll_;
};

int aggregatorRole(void* context, int out) {
    const RoleContext& c = *static_cast<RoleContext*>(context);
    const TestbedPlan& plan = *c.plan;
    const PlanTraining* tr = c.training;
    if (tr) useSingleThreadedKernels();
    // The server's model as the round policies keep it (RoundPolicy::start).
    ServerModel model(tr ? tr->initial : ParamsPtr{}, tr ? tr->serverOptimizer : ServerOptimizerConfig{});
    std::vector<std::pair<std::uint32_t, ParamsPtr>> toEvaluate; // (round, model after it)
    std::vector<std::size_t> all(plan.rounds.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    Children children(c, plan.rounds, all);
    std::string error;
    if (!children.accept(error)) return fail(out, error);
    for (std::size_t ri = 0; ri < plan.rounds.size(); ++ri) {
        RoundOutcome o;
        if (!children.play(ri, model, o, out)) {
            const std::string broken = children.broken();
            children.abort();
            return fail(out, "the connection to " + broken + " broke");
        }
        // Evaluated after the rounds: the test set's pass is not part of the round.
        if (tr && plan.rounds[ri].evaluate) toEvaluate.emplace_back(static_cast<std::uint32_t>(ri), model.params());
        Out rec;
        putRound(rec, ri, o);
        sendRecord(out, 'R', rec.buf);
    }
    // Lost jobs' models still on their way (the owner resumed every process after the last
    // round), then the end.
    children.finish();
    // The final model too, as the engine evaluates it at the end when its last round was not.
    const auto last = static_cast<std::uint32_t>(plan.rounds.size() - 1);
    if (tr && !plan.rounds.empty() && (toEvaluate.empty() || toEvaluate.back().first != last))
        toEvaluate.emplace_back(last, model.params());
    if (!toEvaluate.empty()) {
        Out ev;
        ev.put(static_cast<std::uint32_t>(toEvaluate.size()));
        for (const auto& [ri, params] : toEvaluate) {
            const EvalResult e = tr->learner->evaluate(*params);
            ev.put(ri);
            ev.put(e.loss);
            ev.put(e.accuracy);
        }
        sendRecord(out, 'V', ev.buf);
    }
    sendRecord(out, 'D', {});
    return 0;
}

/// An intermediate aggregator of a tiered tree (core/policies/tiered.h): a trainer to its
/// parent and a root to its children. For each model its parent sends (a session job), it
/// plays the session's sub-rounds with its children as the root plays its rounds, from that
/// model, then sends the change of its model since the session began up as the job's update
/// (its sessions' samples and sample-weighted loss in the header, as Tiered::sendUp).
int intermediateRole(void* context, int out) {
    const RoleContext& c = *static_cast<RoleContext*>(context);
    const TestbedPlan& plan = *c.plan;
    const PlanTraining* tr = c.training;
    if (tr) useSingleThreadedKernels();
    std::vector<std::size_t> mine;
    for (std::size_t ri = 0; ri < plan.subRounds.size(); ++ri)
        if (plan.subRounds[ri].aggregatorBox == c.box) mine.push_back(ri);
    // Its children first, so that its parent's first round finds the whole subtree ready.
    Children children(c, plan.subRounds, mine);
    std::string error;
    if (!children.accept(error)) return fail(out, error);
    const int fd = connectTo(c.box, storePoints(c, c.box).at(1), error);
    if (fd < 0) return fail(out, error);
    Header hello;
    hello.kind = 1;
    hello.job = static_cast<std::uint32_t>(c.box);
    if (!writeAll(fd, &hello, sizeof hello)) return fail(out, "hello to the parent aggregator failed");
    // Its model between sessions keeps its server optimiser's state (Tiered's Agg::model).
    // On a failure the connection up is cut too, so that the parent fails at once (naming
    // this aggregator) rather than waiting for its change until the run times out.
    auto failUp = [&](const std::string& message) {
        ::shutdown(fd, SHUT_RDWR);
        return fail(out, message);
    };
    ServerModel model({}, tr ? tr->tiers.at(c.box).serverOptimizer : ServerOptimizerConfig{});
    const std::vector<PlanRound>& above = plan.roundsAbove(c.box);
    Out jobs, subs;
    std::uint32_t jobCount = 0, subCount = 0;
    for (;;) {
        Header h;
        if (!readAll(fd, &h, sizeof h) || h.magic != kMagic) return failUp("the parent's connection broke");
        if (h.kind == 4) break;
        const PlanJob* job = h.round < above.size() && h.job < above[h.round].jobs.size()
                                 ? &above[h.round].jobs[h.job]
                                 : nullptr;
        if (!job || !job->session()) return failUp("a model for a job that is not this aggregator's session");
        auto base = std::make_shared<Params>();
        if (tr && !job->fromInitial ? !readParams(fd, *base, tr->parameters, h.payload) : !skipPayload(fd, h.payload))
            return failUp("the model's bytes stopped coming");
        if (tr && job->fromInitial) *base = *tr->initial; // hierarchical's first session
        // Its parent averages models (hierarchical): the model goes up, not its change.
        const bool sendModel = above[h.round].averages;
        const std::int64_t received = nowNs();
        sleepUntilNs(received + h.holdNs); // the last stretch's latency: the model is in now
        if (tr) model.set(base);
        std::int64_t samples = 0;
        double lossSum = 0.0, lossSamples = 0.0;
        for (int s = 0; s < job->sessionRounds; ++s) {
            const std::size_t ri = job->sessionFirst + static_cast<std::size_t>(s);
            RoundOutcome o;
            o.samples = samples;
            o.lossSum = lossSum;
            o.lossSamples = lossSamples;
            if (!children.play(ri, model, o, -1)) {
                const std::string broken = children.broken();
                children.abort();
                return failUp("the connection to " + broken + " broke");
            }
            samples = o.samples;
            lossSum = o.lossSum;
            lossSamples = o.lossSamples;
            putRound(subs, ri, o);
            ++subCount;
        }
        Params change;
        if (tr && sendModel) {
            change = *model.params();
        } else if (tr) {
            const Params& now = *model.params();
            change.resize(now.size());
            for (std::size_t i = 0; i < now.size(); ++i) change[i] = now[i] - (*base)[i];
        }
        // Up with it: its samples and sample-weighted loss (Tiered::sendUp), or for an
        // averaging parent its loss sum and the samples it is over (TwoLevelPolicy's group
        // sums, whole numbers of samples: exact as integers).
        const double loss = sendModel            ? lossSum
                            : lossSamples > 0 ? lossSum / lossSamples
                                              : std::numeric_limits<double>::quiet_NaN();
        const std::int64_t sent = nowNs();
        Header u;
        u.kind = 3;
        u.round = h.round;
        u.job = h.job;
        u.payload = h.reply;
        u.reply = static_cast<std::uint64_t>(sendModel ? static_cast<std::int64_t>(lossSamples) : samples);
        std::memcpy(&u.holdNs, &loss, sizeof u.holdNs);
        if (!writeAll(fd, &u, sizeof u) || !(tr ? sendParams(fd, change, h.reply) : sendPayload(fd, h.reply)))
            return failUp("the change could not be sent up");
        jobs.put(h.round);
        jobs.put(h.job);
        jobs.put(received);
        jobs.put(sent);
        ++jobCount;
    }
    children.finish();
    ::close(fd);
    Out all;
    all.put(jobCount);
    all.buf += jobs.buf;
    all.put(subCount);
    all.buf += subs.buf;
    sendRecord(out, 'A', all.buf);
    return 0;
}

/// A relay that is an application: each trainer's connection is met here and a connection
/// of its own goes on up; every message is read whole, held for the user-space latency of the
/// stretch it came over, then sent on (store and forward, as the emulator's relays).
int relayRole(void* context, int out) {
    const RoleContext& c = *static_cast<RoleContext*>(context);
    std::map<int, int> above; // child (trainer or aggregator) -> the store point above this relay
    std::map<int, int> below; // child -> the store point below
    for (const auto* list : {&c.plan->rounds, &c.plan->subRounds})
        for (const auto& r : *list)
        for (const auto& j : r.jobs) {
            const auto points = storePoints(c, j.trainerBox);
            for (std::size_t k = 1; k + 1 < points.size(); ++k)
                if (points[k] == c.box) {
                    above[j.trainerBox] = points[k + 1];
                    below[j.trainerBox] = points[k - 1];
                }
        }
    const int one = 1;
    const int ls = listenOnPort();
    if (ls < 0) return fail(out, std::string("relay listen: ") + std::strerror(errno));
    // One message, whole: header and payload in, held, then out. False at the end of a stream.
    auto pump = [](int from, int to, std::int64_t holdNs) {
        std::vector<char> payload;
        for (;;) {
            Header h;
            if (!readAll(from, &h, sizeof h) || h.magic != kMagic) return;
            payload.resize(static_cast<std::size_t>(h.payload));
            if (!readAll(from, payload.data(), payload.size())) return;
            sleepUntilNs(nowNs() + holdNs);
            if (!writeAll(to, &h, sizeof h) || !writeAll(to, payload.data(), payload.size())) return;
        }
    };
    std::vector<std::thread> pumps;
    std::vector<int> fds;
    const std::int64_t giveUp = nowNs() + 25'000'000'000LL;
    std::size_t met = 0;
    while (met < above.size()) {
        pollfd p{ls, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) {
            if (nowNs() > giveUp) return fail(out, "relay: trainers did not connect");
            continue;
        }
        const int down = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
        if (down < 0) continue;
        ::setsockopt(down, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        Header hello;
        if (!readAll(down, &hello, sizeof hello) || hello.magic != kMagic || hello.kind != 1 ||
            !above.count(static_cast<int>(hello.job))) {
            ::close(down);
            continue;
        }
        const int trainer = static_cast<int>(hello.job);
        std::string error;
        const int up = connectTo(c.box, above.at(trainer), error);
        if (up < 0 || !writeAll(up, &hello, sizeof hello)) return fail(out, "relay: " + error);
        ++met;
        fds.push_back(down);
        fds.push_back(up);
        const std::int64_t downHold = segmentLatencyNs(c, c.box, above.at(trainer));
        const std::int64_t upHold = segmentLatencyNs(c, below.at(trainer), c.box);
        pumps.emplace_back([=] {
            pump(up, down, downHold);
            ::shutdown(down, SHUT_WR);
        });
        pumps.emplace_back([=] {
            pump(down, up, upHold);
            ::shutdown(up, SHUT_WR);
        });
    }
    ::close(ls);
    for (auto& t : pumps) t.join();
    for (int fd : fds) ::close(fd);
    sendRecord(out, 'D', {});
    return 0;
}

// ---- The owner's side ----

void say(const TestbedOptions& o, const std::string& line) {
    if (o.log) o.log(line);
}

bool cancelled(const TestbedOptions& o) { return o.cancel && o.cancel->load(); }

std::string rateArg(double mbps, double dilation) {
    return std::to_string(static_cast<long long>(std::llround(mbps * 1e6 / dilation))) + "bit";
}

/// tc commands (batch lines) shaping `dev`'s egress to `mbps`, after a delay when `delayMs`.
std::string shapeLines(const std::string& dev, double mbps, double delayMs, double dilation, bool netem) {
    if (mbps >= 1e6 && !(netem && delayMs > 0)) return {};
    const double bytesPerS = mbps * 1e6 / 8.0 / dilation;
    const long long burst = std::max(3028LL, static_cast<long long>(bytesPerS * 0.0005));
    const long long limit = std::max(200000LL, static_cast<long long>(bytesPerS * 0.25));
    std::ostringstream s;
    std::string parent = "root";
    if (netem && delayMs > 0) {
        s << "qdisc add dev " << dev << " root handle 1: netem delay " << delayMs * dilation << "ms limit 100000\n";
        parent = "parent 1:1";
    }
    if (mbps < 1e6)
        s << "qdisc add dev " << dev << " " << parent << " handle 10: tbf rate " << rateArg(mbps, dilation)
          << " burst " << burst << " limit " << limit << "\n";
    return s.str();
}

/// tx bytes per interface of a box's namespace (/proc/net/dev as seen inside it).
std::map<std::string, double> txBytes(pid_t pid) {
    std::map<std::string, double> tx;
    std::istringstream in(mustRun(pid, {"cat", "/proc/net/dev"}));
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        std::istringstream f(line.substr(colon + 1));
        double v[9] = {};
        for (double& x : v) f >> x;
        tx[name] = v[8];
    }
    return tx;
}

/// TCP's OutSegs and RetransSegs in a box's namespace.
std::pair<double, double> tcpSegments(pid_t pid) {
    std::istringstream in(mustRun(pid, {"cat", "/proc/net/snmp"}));
    std::string line, header;
    while (std::getline(in, line)) {
        if (line.rfind("Tcp:", 0) != 0) continue;
        if (header.empty()) {
            header = line;
            continue;
        }
        std::istringstream h(header), v(line);
        std::string name, value;
        double out = 0, re = 0;
        while (h >> name && v >> value) {
            if (name == "OutSegs") out = std::stod(value);
            if (name == "RetransSegs") re = std::stod(value);
        }
        return {out, re};
    }
    return {0.0, 0.0};
}

/// A round's record (putRound) as measured: times in scenario seconds (`scen`), the payload
/// each job moved.
template <class Scen>
MeasuredRound readRound(In& in, const std::vector<PlanRound>& rounds, const Scen& scen) {
    MeasuredRound mr;
    const auto ri = in.get<std::uint32_t>();
    const auto t0 = in.get<std::int64_t>();
    const auto end = in.get<std::int64_t>();
    const PlanRound& pr = rounds.at(ri);
    mr.round = pr.round;
    mr.aggregatorBox = pr.aggregatorBox;
    mr.startS = scen(t0);
    mr.endS = scen(end);
    const auto n = in.get<std::uint32_t>();
    for (std::uint32_t ji = 0; ji < n; ++ji) {
        MeasuredJob j;
        j.trainerBox = pr.jobs.at(ji).trainerBox;
        j.dispatchS = scen(in.get<std::int64_t>());
        j.arrivedS = scen(in.get<std::int64_t>());
        j.aggregated = in.get<std::uint32_t>() != 0;
        j.downBytes = std::llround(pr.jobs[ji].downBytes) + kHeaderBytes;
        j.lost = pr.jobs[ji].lost;
        j.upBytes = j.lost ? 0.0 : std::llround(pr.jobs[ji].upBytes) + kHeaderBytes;
        mr.jobs.push_back(j);
    }
    mr.trainLoss = in.get<double>();
    mr.samePredictedUpdates = in.get<std::uint32_t>() != 0;
    return mr;
}

} // namespace

TestbedResult runTestbed(const TestbedPlan& plan, const TestbedOptions& options) {
    if (options.compute == TestbedOptions::Compute::Real && !plan.pacedOnly.empty()) throw TestbedError(plan.pacedOnly);
    const std::string problem = privilegeProblem();
    if (!problem.empty()) throw TestbedError(problem);
    if (!(options.dilation > 0) || !std::isfinite(options.dilation))
        throw TestbedError("the time dilation must be a positive number");
    // A write to the pipe of a process that has died (a box, `ip -batch`) must fail, not end
    // this process: SIGPIPE is ignored while the testbed runs.
    struct IgnoreSigpipe {
        struct sigaction old {};
        IgnoreSigpipe() {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            ::sigaction(SIGPIPE, &ignore, &old);
        }
        ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old, nullptr); }
    } ignoreSigpipe;
    const auto setupStart = std::chrono::steady_clock::now();
    TestbedResult result;
    result.dilation = options.dilation;
    result.storeAndForward = options.storeAndForward;
    result.trained = plan.training && options.training;
    result.computeReal = options.compute == TestbedOptions::Compute::Real;
    if (const int n = cleanLeftovers()) say(options, "ended " + std::to_string(n) + " processes a crashed testbed left");
    result.kernel = detectKernelFeatures();
    if (!result.kernel.tbf)
        throw TestbedError("this kernel has no tbf queueing discipline (tc qdisc add ... tbf failed): links cannot be shaped");
    bool anyLatency = false;
    for (const auto& b : plan.boxes) anyLatency = anyLatency || (b.limited && b.latencyMs > 0);
    if (options.latency == TestbedOptions::Latency::Kernel && anyLatency && !result.kernel.netem)
        throw TestbedError("--latency kernel: this kernel has no netem queueing discipline");
    result.kernelLatency = anyLatency && result.kernel.netem && options.latency != TestbedOptions::Latency::UserSpace;
    say(options, std::string("kernel: tbf ") + (result.kernel.tbf ? "yes" : "no") + ", htb " +
                     (result.kernel.htb ? "yes" : "no") + ", netem " + (result.kernel.netem ? "yes" : "no") +
                     "; latency " + (result.kernelLatency ? "by netem" : anyLatency ? "in user space" : "none"));

    // The processes: the contexts are complete before the first fork (each child reads its copy).
    std::vector<RoleContext> contexts(plan.boxes.size());
    for (std::size_t b = 0; b < plan.boxes.size(); ++b)
        contexts[b] = {&plan,
                       static_cast<int>(b),
                       options.dilation,
                       anyLatency && !result.kernelLatency,
                       options.storeAndForward,
                       result.trained ? plan.training.get() : nullptr,
                       result.computeReal};
    std::vector<Box> boxes;
    boxes.reserve(plan.boxes.size());
    for (std::size_t b = 0; b < plan.boxes.size(); ++b) {
        const PlanBox& pb = plan.boxes[b];
        const bool relay = b != 0 && pb.node >= 0 && !pb.trains && !pb.aggregates;
        Box::Role role = b == 0           ? &aggregatorRole
                         : pb.aggregates  ? &intermediateRole
                         : pb.trains      ? &trainerRole
                         : relay && options.storeAndForward ? &relayRole
                                                            : nullptr;
        boxes.push_back(Box::spawn(pb.label, role, &contexts[b]));
        if (cancelled(options)) {
            result.cancelled = true;
            return result;
        }
    }
    result.processes = static_cast<int>(boxes.size());
    say(options, std::to_string(boxes.size()) + " processes, each in its own network namespace");

    // Links: a veth pair per box with a parent, made inside the parent's namespace.
    std::vector<std::string> ipLines(plan.boxes.size()), tcLines(plan.boxes.size());
    for (std::size_t b = 0; b < plan.boxes.size(); ++b)
        ipLines[b] = "link set lo up\naddr add " + address(static_cast<int>(b)) + "/32 dev lo\n";
    for (std::size_t b = 1; b < plan.boxes.size(); ++b) {
        const PlanBox& pb = plan.boxes[b];
        const auto p = static_cast<std::size_t>(pb.parent);
        const std::string down = "d" + std::to_string(b);
        mustRun(boxes[p].pid(), {"ip", "link", "add", "name", down, "type", "veth", "peer", "name", "up", "netns",
                                 std::to_string(boxes[b].pid())});
        ipLines[b] += "link set dev up up\nroute add default via " + address(pb.parent) + " dev up onlink src " +
                      address(static_cast<int>(b)) + "\n";
        ipLines[p] += "link set dev " + down + " up\n";
        // The parent reaches every box under this one through it.
        for (std::size_t x = b; x < plan.boxes.size(); ++x) {
            bool under = false;
            for (int y = static_cast<int>(x); y >= 0; y = plan.boxes[static_cast<std::size_t>(y)].parent)
                under = under || y == static_cast<int>(b);
            if (!under) continue;
            ipLines[p] += "route add " + address(static_cast<int>(x)) + "/32" +
                          (x == b ? "" : " via " + address(static_cast<int>(b)) + " onlink") + " dev " + down +
                          " src " + address(pb.parent) + "\n";
        }
        if (pb.limited) {
            tcLines[b] += shapeLines("up", pb.upMbps, pb.latencyMs, options.dilation, result.kernelLatency);
            tcLines[p] += shapeLines(down, pb.downMbps, pb.latencyMs, options.dilation, result.kernelLatency);
        }
        if (cancelled(options)) {
            result.cancelled = true;
            return result;
        }
    }
    for (std::size_t b = 0; b < plan.boxes.size(); ++b) {
        mustRun(boxes[b].pid(), {"ip", "-batch", "-"}, ipLines[b]);
        if (!tcLines[b].empty()) mustRun(boxes[b].pid(), {"tc", "-batch", "-"}, tcLines[b]);
    }
    result.setupSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setupStart).count();
    say(options, "links shaped; set up in " + std::to_string(result.setupSeconds).substr(0, 5) + " s");

    // Go, and follow the aggregator's rounds.
    for (std::size_t b = 1; b < boxes.size(); ++b) boxes[b].go();
    boxes[0].go();
    double predictedEnd = plan.rounds.empty() ? 0.0 : plan.rounds.back().endS;
    const double timeout = options.timeoutS > 0 ? options.timeoutS : 30.0 + 3.0 * predictedEnd * options.dilation;
    const auto roundsStart = std::chrono::steady_clock::now();
    RecordReader agg;
    std::int64_t epoch = 0;
    bool done = false;
    std::string failure;
    // Availability: the changes of each round, due from its start (the aggregator's 'S').
    // Signals go only to a live box's own pid (> 0: Box sets -1 once it reaped the process,
    // and kill(-1, ...) would reach every process), and stop with the first failure.
    std::vector<std::pair<std::int64_t, const TestbedPlan::Transition*>> due; // (ns, change)
    std::map<int, std::int64_t> stoppedAt;                                     // box -> ns
    auto scen = [&](std::int64_t t) { return static_cast<double>(t - epoch) / 1e9 / options.dilation; };
    auto signalBox = [&](int b, int sig) {
        const pid_t pid = boxes[static_cast<std::size_t>(b)].pid();
        return pid > 0 && ::kill(pid, sig) == 0;
    };
    auto resumeAll = [&] {
        const std::int64_t now = nowNs();
        for (const auto& [b, since] : stoppedAt) {
            signalBox(b, SIGCONT);
            result.stopped.push_back({b, scen(since), scen(now)});
        }
        stoppedAt.clear();
        due.clear();
    };
    auto playDue = [&] {
        const std::int64_t now = nowNs();
        std::size_t k = 0;
        for (; k < due.size() && due[k].first <= now && failure.empty(); ++k) {
            const TestbedPlan::Transition& t = *due[k].second;
            if (t.online) {
                const auto it = stoppedAt.find(t.box);
                if (it == stoppedAt.end()) continue;
                if (signalBox(t.box, SIGCONT)) ++result.availabilityChanges;
                result.stopped.push_back({t.box, scen(it->second), scen(now)});
                stoppedAt.erase(it);
            } else if (!stoppedAt.count(t.box) && signalBox(t.box, SIGSTOP)) {
                ++result.availabilityChanges;
                stoppedAt[t.box] = now;
            }
        }
        due.erase(due.begin(), due.begin() + static_cast<std::ptrdiff_t>(k));
    };
    while (!done && failure.empty()) {
        if (cancelled(options)) {
            result.cancelled = true;
            break;
        }
        playDue();
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - roundsStart).count() > timeout) {
            failure = "the rounds took longer than " + std::to_string(static_cast<int>(timeout)) + " s";
            break;
        }
        for (auto& box : boxes) {
            int status = 0;
            if (!box.alive(&status)) failure = "process " + box.label() + " ended unexpectedly";
        }
        if (!failure.empty()) break;
        int waitMs = 50;
        if (!due.empty())
            waitMs = static_cast<int>(std::clamp<std::int64_t>((due.front().first - nowNs()) / 1000000, 0, 50));
        pollfd p{boxes[0].resultFd(), POLLIN, 0};
        if (::poll(&p, 1, waitMs) <= 0) continue;
        std::vector<std::pair<char, std::string>> records;
        agg.feed(boxes[0].resultFd(), records);
        for (const auto& [type, body] : records) {
            if (type == 'E') failure = "aggregator: " + body;
            if (type == 'D') done = true;
            if (type == 'S') {
                In in{body};
                const auto ri = in.get<std::uint32_t>();
                const auto t0 = in.get<std::int64_t>();
                if (ri == 0) epoch = t0;
                for (const auto& t : plan.availability)
                    if (t.round == ri)
                        due.emplace_back(t0 + static_cast<std::int64_t>(t.offsetS * options.dilation * 1e9), &t);
                std::stable_sort(due.begin(), due.end(),
                                 [](const auto& x, const auto& y) { return x.first < y.first; });
                playDue();
            }
            if (type == 'V') {
                In in{body};
                const auto n = in.get<std::uint32_t>();
                for (std::uint32_t k = 0; k < n; ++k) {
                    const auto ri = in.get<std::uint32_t>();
                    const double loss = in.get<double>(), accuracy = in.get<double>();
                    if (ri < result.rounds.size() && plan.rounds[ri].evaluate) {
                        result.rounds[ri].testLoss = loss;
                        result.rounds[ri].testAccuracy = accuracy;
                    }
                    // The last one is the final model's (after the last round).
                    result.finalTestLoss = loss;
                    result.finalTestAccuracy = accuracy;
                }
            }
            if (type != 'R') continue;
            In in{body};
            const std::size_t ri = In{body}.get<std::uint32_t>();
            if (ri == 0) {
                In first{body};
                first.get<std::uint32_t>();
                epoch = first.get<std::int64_t>();
            }
            const PlanRound& pr = plan.rounds.at(ri);
            MeasuredRound mr = readRound(in, plan.rounds, scen);
            say(options, "round " + std::to_string(mr.round) + ": " + std::to_string(mr.endS - mr.startS) +
                             " s (predicted " + std::to_string(pr.endS - pr.startS) + " s)");
            result.rounds.push_back(std::move(mr));
            // The rounds are over: every stopped process resumes (they end normally).
            if (ri + 1 == plan.rounds.size()) resumeAll();
        }
        if (agg.eof && !done && failure.empty()) failure = "the aggregator ended without finishing its rounds";
    }
    resumeAll(); // after a failure or a cancel too (no signal to a process that is gone)
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - roundsStart).count();
    if (!failure.empty()) throw TestbedError("testbed: " + failure + "; every process and link was removed");
    // The processes' own records, sent when the rounds are over, so not after a cancel (the
    // rounds measured keep the root's times): an intermediate aggregator's sub-rounds and its
    // times as a child (model in, change sent), then the trainers' (model in, update out).
    auto recordsOf = [&](std::size_t b) {
        RecordReader rr;
        std::vector<std::pair<char, std::string>> records;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (records.empty() && !rr.eof && std::chrono::steady_clock::now() < until) {
            pollfd p{boxes[b].resultFd(), POLLIN, 0};
            if (::poll(&p, 1, 50) > 0) rr.feed(boxes[b].resultFd(), records);
        }
        return records;
    };
    // Times as a child: the box's own instants of its job `ji` of round `ri` (of the list its
    // aggregator's rounds are in).
    auto childTimes = [&](std::size_t b, std::uint32_t ri, std::uint32_t ji, std::int64_t received,
                          std::int64_t sent) -> MeasuredJob* {
        auto& list = plan.aggregatorOf(static_cast<int>(b)) == 0 ? result.rounds : result.subRounds;
        if (ri >= list.size() || ji >= list[ri].jobs.size()) return nullptr;
        MeasuredJob& j = list[ri].jobs[ji];
        const auto points = storePoints(contexts[b], static_cast<int>(b));
        // (A session from the initial model was not held: nothing came down.)
        const bool held = !plan.roundsAbove(static_cast<int>(b))[ri].jobs[ji].fromInitial;
        const double lat = held ? static_cast<double>(segmentLatencyNs(contexts[b], static_cast<int>(b), points.at(1))) /
                                      1e9 / options.dilation
                                : 0.0;
        j.receivedS = static_cast<double>(received - epoch) / 1e9 / options.dilation + lat;
        j.computedS = static_cast<double>(sent - epoch) / 1e9 / options.dilation;
        return &j;
    };
    if (!result.cancelled) result.subRounds.resize(plan.subRounds.size());
    // Parents before children (boxes are in tree order): a deeper aggregator's session jobs
    // are in its parent's sub-rounds.
    for (std::size_t b = 1; b < boxes.size() && !result.cancelled; ++b) {
        if (!plan.boxes[b].aggregates) continue;
        for (const auto& [type, body] : recordsOf(b)) {
            if (type == 'E') throw TestbedError("aggregator " + plan.boxes[b].label + ": " + body);
            if (type != 'A') continue;
            In in{body};
            const auto n = in.get<std::uint32_t>();
            std::vector<JobTimes> own;
            for (std::uint32_t k = 0; k < n; ++k) own.push_back(readJobTimes(in));
            const auto m = in.get<std::uint32_t>();
            for (std::uint32_t k = 0; k < m; ++k) {
                const std::size_t ri = In{in.s, in.at}.get<std::uint32_t>();
                MeasuredRound mr = readRound(in, plan.subRounds, scen);
                if (ri < result.subRounds.size()) result.subRounds[ri] = std::move(mr);
            }
            for (const JobTimes& t : own) childTimes(b, t.round, t.job, t.received, t.sent);
        }
    }
    for (std::size_t b = 1; b < boxes.size() && !result.cancelled; ++b) {
        if (!plan.boxes[b].trains) continue;
        for (const auto& [type, body] : recordsOf(b)) {
            if (type == 'E') throw TestbedError("trainer " + plan.boxes[b].label + ": " + body);
            if (type != 'T') continue;
            In in{body};
            const auto n = in.get<std::uint32_t>();
            for (std::uint32_t k = 0; k < n; ++k) {
                const JobTimes t = readJobTimes(in);
                const auto trainNs = in.get<std::int64_t>();
                const auto late = in.get<std::uint32_t>();
                const auto samples = in.get<std::int64_t>();
                const auto loss = in.get<double>();
                MeasuredJob* j = childTimes(b, t.round, t.job, t.received, t.sent);
                if (!j) continue;
                if (trainNs >= 0) {
                    j->trainWallS = static_cast<double>(trainNs) / 1e9;
                    j->trainLoss = loss;
                    j->samples = samples;
                }
                result.lateJobs += static_cast<int>(late);
            }
        }
    }

    // Bytes the kernel counted on every link, per direction.
    std::vector<std::map<std::string, double>> tx(boxes.size());
    for (std::size_t b = 0; b < boxes.size(); ++b) {
        tx[b] = txBytes(boxes[b].pid());
        if (b == 0 || plan.boxes[b].trains || plan.boxes[b].aggregates) {
            const auto [out, re] = tcpSegments(boxes[b].pid());
            result.tcpSegmentsOut += out;
            result.tcpRetransmitted += re;
        }
    }
    for (std::size_t b = 1; b < boxes.size(); ++b) {
        MeasuredLink l;
        l.box = static_cast<int>(b);
        l.wireUpBytes = tx[b]["up"];
        l.wireDownBytes = tx[static_cast<std::size_t>(plan.boxes[b].parent)]["d" + std::to_string(b)];
        for (const auto& r : result.rounds)
            for (const auto& j : r.jobs)
                for (int x : plan.linksUp(j.trainerBox))
                    if (x == static_cast<int>(b)) {
                        l.payloadUpBytes += j.upBytes;
                        l.payloadDownBytes += j.downBytes;
                    }
        // The sub-rounds of the global rounds measured (also after a cancel, when their
        // processes did not report them): each job moved its plan's bytes and a header.
        for (const auto& r : plan.subRounds)
            if (r.rootRound < result.rounds.size())
                for (const auto& j : r.jobs)
                    for (int x : plan.linksUp(j.trainerBox))
                        if (x == static_cast<int>(b)) {
                            l.payloadUpBytes += j.lost ? 0.0 : std::llround(j.upBytes) + kHeaderBytes;
                            l.payloadDownBytes += std::llround(j.downBytes) + kHeaderBytes;
                        }
        result.links.push_back(l);
    }
    for (auto& box : boxes) box.end();
    return result;
}

} // namespace fog::testbed
