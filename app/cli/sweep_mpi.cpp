// sweep under mpirun: rank 0 owns the run store and hands out trials; every rank runs them
// (rank 0 on a thread of its own) and the others send their finished runs back as bytes, so
// one process writes the SQLite file. A rank that falls silent (dead, killed, its node lost)
// loses only its in-flight trial: rank 0 reports it and `--resume SWEEP` runs it again.
//
// Only the main thread of each process calls MPI (MPI_THREAD_FUNNELED).

#include "app/cli/sweep_mpi.h"

#include "app/cli/progress_bar.h"
#include "core/scenario/scenario_io.h"
#include "core/sweep/sweep.h"
#include "core/sweep/captured_run.h"
#include "core/seek/trials.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <set>
#include <sstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#ifdef FOG_HAVE_MPI
#include <mpi.h>
#endif

namespace fog::cli {

bool launchedByMpirun() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"}) {
        const char* s = std::getenv(v);
        if (s && *s) {
            // A single-process launch behaves like no launcher at all.
            if (std::string(v) == "OMPI_COMM_WORLD_SIZE" || std::string(v) == "PMI_SIZE" ||
                std::string(v) == "SLURM_STEP_NUM_TASKS")
                return std::atoi(s) > 1;
            return true;
        }
    }
    return false;
}

bool mpiAvailable() {
#ifdef FOG_HAVE_MPI
    return true;
#else
    return false;
#endif
}

#ifndef FOG_HAVE_MPI

int runSweepMpi(const CliOptions&, const std::function<SweepSpec()>&, const SweepCallbacks&) {
    std::cerr << "fogstudio-cli: started by an MPI launcher, but this build has no MPI support "
                 "(install libopenmpi-dev and rebuild); running the sweep in one process per rank "
                 "would store every run several times, so nothing was run\n";
    return 2;
}

int runSeekMpi(const CliOptions&, const std::function<SeekSpec()>&, const SeekCallbacks&) {
    std::cerr << "fogstudio-cli: started by an MPI launcher, but this build has no MPI support "
                 "(install libopenmpi-dev and rebuild); running the search in one process per rank "
                 "would store every run several times, so nothing was run\n";
    return 2;
}

#else

namespace {

enum Tag { kReady = 1, kTask = 2, kStop = 3, kBeat = 4, kResult = 5 };

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double rankTimeout() {
    const char* s = std::getenv("FOGSTUDIO_MPI_TIMEOUT");
    const double v = s ? std::atof(s) : 0.0;
    return v > 0 ? v : 30.0;
}

void sendString(const std::string& s, int to, int tag) {
    MPI_Send(s.data(), static_cast<int>(s.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

/// Receives a probed message, giving up after `timeout` seconds: a rank killed while it sent
/// leaves its message half there, and a blocking receive would wait for it forever.
bool receiveWithin(const MPI_Status& probed, double timeout, std::string& out) {
    int n = 0;
    MPI_Get_count(&probed, MPI_BYTE, &n);
    out.assign(static_cast<std::size_t>(n), '\0');
    MPI_Request req;
    MPI_Irecv(out.data(), n, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, &req);
    const double until = now() + timeout;
    for (;;) {
        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (now() > until) return false; // the request is abandoned; MPI_Abort ends the job
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

/// Sends, giving up after `timeout` seconds: a message larger than the eager limit waits
/// for the receiver, and a dead receiver never comes.
bool sendWithin(const std::string& msg, int to, int tag, double timeout) {
    MPI_Request req;
    MPI_Isend(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &req);
    const double until = now() + timeout;
    for (;;) {
        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (now() > until) return false; // abandoned with the rank; MPI_Abort ends the job
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

std::string receive(const MPI_Status& probed) {
    int n = 0;
    MPI_Get_count(&probed, MPI_BYTE, &n);
    std::string buf(static_cast<std::size_t>(n), '\0');
    MPI_Recv(buf.data(), n, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return buf;
}

/// "index\nthreads\n" followed by the scenario text.
std::string taskMessage(std::size_t index, int threads, const Scenario& s) {
    return std::to_string(index) + "\n" + std::to_string(threads) + "\n" + storedScenarioText(s);
}

int worker(const std::atomic<bool>* cancel) {
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kReady, MPI_COMM_WORLD);
    for (;;) {
        MPI_Status st;
        // Poll with short sleeps: a blocking probe spins a core, which on an oversubscribed
        // machine takes it from the ranks that compute.
        for (int flag = 0;;) {
            MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (flag) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const std::string msg = receive(st);
        if (st.MPI_TAG == kStop) return 0;
        const auto a = msg.find('\n');
        const auto b = msg.find('\n', a + 1);
        const std::string index = msg.substr(0, a);
        const int threads = std::max(1, std::atoi(msg.substr(a + 1, b - a - 1).c_str()));
        CapturedRun run;
        try {
            const Scenario s = loadScenarioText(msg.substr(b + 1), "trial " + index);
            std::atomic<bool> finished{false};
            std::thread t([&] {
                run = captureRun(s, threads, cancel);
                finished = true;
            });
            // Heartbeats tell rank 0 this rank is alive while a long trial runs.
            double beat = now();
            while (!finished.load()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                if (now() - beat >= 1.0) {
                    MPI_Send(nullptr, 0, MPI_BYTE, 0, kBeat, MPI_COMM_WORLD);
                    beat = now();
                }
            }
            t.join();
        } catch (const std::exception& e) {
            run = CapturedRun{};
            run.summary.status = RunStatus::Failed;
            run.summary.stopReason = e.what();
        }
        sendString(index + "\n" + encodeCaptured(run), 0, kResult);
    }
}

} // namespace

int runSweepMpi(const CliOptions& o, const std::function<SweepSpec()>& makeSpec, const SweepCallbacks& cb) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    installInterruptHandler();
    if (rank != 0) {
        const int rc = worker(interruptFlag());
        MPI_Finalize();
        return rc;
    }

    auto stopAll = [&](int code) {
        for (int r = 1; r < size; ++r) {
            // Each worker says ready first; answer it with stop.
            MPI_Status st;
            MPI_Probe(r, kReady, MPI_COMM_WORLD, &st);
            receive(st);
            MPI_Send(nullptr, 0, MPI_BYTE, r, kStop, MPI_COMM_WORLD);
        }
        MPI_Finalize();
        return code;
    };

    SweepSpec spec;
    SweepPlan plan;
    std::unique_ptr<RunStore> store;
    std::vector<std::size_t> todo;
    std::int64_t sweepId = 0;
    std::vector<std::int64_t> incomplete;
    try {
        spec = makeSpec();
        plan = planSweep(spec);
        store = openStore(o);
        if (!store) return stopAll(1);
        std::vector<char> skip(plan.items.size(), 0);
        if (spec.resume) {
            if (!storedSweep(*store, spec.resume))
                throw ScenarioError({{"--resume", 0, 0, "", "there is no sweep " + std::to_string(spec.resume)}});
            const SweepState state = sweepState(*store, spec.resume, plan);
            if (!state.foreign.empty())
                throw ScenarioError({{"--resume", 0, 0, "", "sweep " + std::to_string(spec.resume) +
                                                                " holds runs this command would not make (" +
                                                                state.foreign.front() + ")"}});
            skip = state.done;
            incomplete = state.incomplete;
            sweepId = spec.resume;
        } else {
            sweepId = store->createSweep(plan.name, plan.specText);
        }
        for (std::size_t i = 0; i < plan.items.size(); ++i)
            if (!skip[i]) todo.push_back(i);
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return stopAll(2);
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return stopAll(1);
    }

    const double started = now();
    std::mutex mutex;
    std::deque<std::size_t> queue(todo.begin(), todo.end());
    int done = 0, failed = 0, cancelledRuns = 0;
    const int total = static_cast<int>(todo.size());
    std::map<int, int> perRank;
    auto report = [&](std::size_t index, const RunSummary& s, int byRank) {
        // Under the mutex.
        ++done;
        ++perRank[byRank];
        if (s.status == RunStatus::Failed) ++failed;
        if (s.status == RunStatus::Cancelled) ++cancelledRuns;
        if (cb.progress) {
            SweepProgress p{done, total, plan.items[index].config, plan.items[index].repeat, s};
            cb.progress(p, byRank);
        }
    };
    auto pop = [&](std::size_t& index) {
        std::lock_guard lock(mutex);
        if (queue.empty() || interruptFlag()->load()) return false;
        index = queue.front();
        queue.pop_front();
        return true;
    };

    // Rank 0 runs trials too, on a thread of its own, storing them directly.
    std::thread local([&] {
        for (std::size_t i; pop(i);) {
            const SweepItem& it = plan.items[i];
            RunSummary summary;
            runAndStore(it.scenario, *store, sweepRunMeta(spec, sweepId, it), spec.threadsPerRun, nullptr, summary,
                        interruptFlag());
            std::lock_guard lock(mutex);
            report(i, summary, 0);
        }
    });

    struct Worker {
        bool active = true;
        long inflight = -1;
        double heard = 0;
    };
    std::vector<Worker> workers(static_cast<std::size_t>(size));
    for (auto& w : workers) w.heard = now();
    workers[0].active = false;
    int active = size - 1;
    std::vector<std::pair<int, std::size_t>> lost; // rank, item
    const double timeout = rankTimeout();
    std::string storeError;
    while (active > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            const double t = now();
            for (int r = 1; r < size; ++r) {
                auto& w = workers[static_cast<std::size_t>(r)];
                if (w.active && w.inflight >= 0 && t - w.heard > timeout) {
                    // Silent for too long: dead or cut off. Its trial is lost, not re-run
                    // here (it may be what kills ranks); --resume runs it.
                    w.active = false;
                    --active;
                    lost.push_back({r, static_cast<std::size_t>(w.inflight)});
                    std::fprintf(stderr, "\nfogstudio-cli: rank %d silent for %.0f s: its trial %s #%d is lost\n", r,
                                 t - w.heard, plan.items[static_cast<std::size_t>(w.inflight)].config.c_str(),
                                 plan.items[static_cast<std::size_t>(w.inflight)].repeat);
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            continue;
        }
        auto& w = workers[static_cast<std::size_t>(st.MPI_SOURCE)];
        std::string msg;
        if (!receiveWithin(st, timeout, msg)) {
            // The rank died while sending: whatever it was sending is lost with it.
            if (w.active) {
                w.active = false;
                --active;
                if (w.inflight >= 0) {
                    lost.push_back({st.MPI_SOURCE, static_cast<std::size_t>(w.inflight)});
                    std::fprintf(stderr, "\nfogstudio-cli: rank %d died while sending: its trial %s #%d is lost\n",
                                 st.MPI_SOURCE, plan.items[static_cast<std::size_t>(w.inflight)].config.c_str(),
                                 plan.items[static_cast<std::size_t>(w.inflight)].repeat);
                } else {
                    lost.push_back({st.MPI_SOURCE, plan.items.size()}); // nothing in flight
                }
            }
            continue;
        }
        w.heard = now();
        if (!w.active) continue; // declared dead earlier; ignore what it still says
        if (st.MPI_TAG == kBeat) continue;
        if (st.MPI_TAG == kResult) {
            const auto nl = msg.find('\n');
            const std::size_t index = std::strtoull(msg.substr(0, nl).c_str(), nullptr, 10);
            try {
                const CapturedRun run = decodeCaptured(msg.substr(nl + 1));
                const SweepItem& it = plan.items.at(index);
                storeCaptured(*store, sweepRunMeta(spec, sweepId, it), it.scenario, spec.threadsPerRun, run);
                std::lock_guard lock(mutex);
                report(index, run.summary, st.MPI_SOURCE);
            } catch (const std::exception& e) {
                storeError = e.what();
                std::lock_guard lock(mutex);
                lost.push_back({st.MPI_SOURCE, index});
            }
            w.inflight = -1;
        }
        // kReady or a result: hand out the next trial, or stop the rank.
        std::size_t next = 0;
        if (pop(next)) {
            const std::string task = taskMessage(next, spec.threadsPerRun, plan.items[next].scenario);
            if (sendWithin(task, st.MPI_SOURCE, kTask, timeout)) {
                w.inflight = static_cast<long>(next);
            } else {
                // The rank died after asking: the trial never started, so it goes back.
                {
                    std::lock_guard lock(mutex);
                    queue.push_front(next);
                }
                w.active = false;
                --active;
                lost.push_back({st.MPI_SOURCE, plan.items.size()});
                std::fprintf(stderr, "\nfogstudio-cli: rank %d stopped answering; its next trial goes to another rank\n",
                             st.MPI_SOURCE);
            }
        } else {
            MPI_Send(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, kStop, MPI_COMM_WORLD);
            w.active = false;
            --active;
        }
    }
    local.join();
    if (cb.finished) cb.finished();

    const bool cancelled = interruptFlag()->load() || cancelledRuns > 0;
    int replaced = 0;
    if (!cancelled && lost.empty())
        for (auto id : incomplete)
            if (store->deleteRun(id)) ++replaced;
    if (!storeError.empty()) std::cerr << "fogstudio-cli: a result could not be stored: " << storeError << "\n";
    if (cb.summary) cb.summary(*store, sweepId);
    std::cout << "sweep " << sweepId << ": " << done << " runs over " << size << " MPI ranks in " << std::fixed;
    std::cout.precision(1);
    std::cout << now() - started << " s (";
    for (auto [r, n] : perRank) std::cout << (r ? ", " : "") << "rank " << r << ": " << n;
    std::cout << ") stored in " << store->path();
    if (failed) std::cout << " (" << failed << " failed)";
    if (plan.items.size() > todo.size()) std::cout << "; " << plan.items.size() - todo.size() << " were already stored";
    if (replaced) std::cout << "; " << replaced << " incomplete runs replaced";
    std::cout << "\n";
    const bool unfinished = !lost.empty() || cancelled || done < total;
    if (!lost.empty()) {
        std::cout << lost.size() << " trial(s) lost with their rank:";
        for (auto [r, i] : lost) {
            if (i < plan.items.size()) std::cout << "\n  rank " << r << ": " << plan.items[i].config << " #" << plan.items[i].repeat;
            else std::cout << "\n  rank " << r << ": (no trial in flight)";
        }
        std::cout << "\n";
    }
    if (unfinished)
        std::cout << "resume with: fogstudio-cli sweep --resume " << sweepId << " (with mpirun or without)\n";
    std::cout.flush();
    if (!lost.empty()) {
        // A dead peer can make MPI_Finalize wait forever; everything is stored by now.
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Finalize();
    if (cancelled) return 130;
    return (failed || unfinished) ? 1 : 0;
}

// ---------------------------------------------------------------- seek

namespace {

enum SeekTag { kSeekStart = 11, kSeekGoOn = 12, kSeekStopTrial = 13, kSeekWaiting = 14, kSeekEnded = 15 };

std::string budgetWire(const TrialBudget& b) {
    char v[64];
    std::snprintf(v, sizeof v, "%.17g", b.value);
    return std::to_string(static_cast<int>(b.kind)) + "\n" + v + "\n";
}

/// Reads "line\n" fields from `msg` starting at `pos`.
std::string field(const std::string& msg, std::size_t& pos) {
    const auto nl = msg.find('\n', pos);
    const std::string f = msg.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? msg.size() : nl + 1;
    return f;
}

TrialBudget readBudget(const std::string& msg, std::size_t& pos) {
    TrialBudget b;
    b.kind = static_cast<TrialBudget::Kind>(std::atoi(field(msg, pos).c_str()));
    b.value = std::strtod(field(msg, pos).c_str(), nullptr);
    return b;
}

/// A rank other than 0: holds the trials rank 0 gives it (one computing at a time) and sends
/// back where each stands. Its MPI loop never blocks on a run, so it beats every second.
int seekWorker(const std::atomic<bool>* cancel) {
    TrialHost host(1, cancel);
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kReady, MPI_COMM_WORLD);
    double beat = now();
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            const std::string msg = receive(st);
            if (st.MPI_TAG == kStop) return 0; // the host stops what it still holds
            std::size_t pos = 0;
            const int trial = std::atoi(field(msg, pos).c_str());
            if (st.MPI_TAG == kSeekStart) {
                const TrialBudget b = readBudget(msg, pos);
                const int threads = std::max(1, std::atoi(field(msg, pos).c_str()));
                try {
                    host.start(trial, loadScenarioText(msg.substr(pos), "trial " + std::to_string(trial)), threads, b);
                } catch (const std::exception& e) {
                    CapturedRun failed;
                    failed.summary.status = RunStatus::Failed;
                    failed.summary.stopReason = e.what();
                    sendString(std::to_string(trial) + "\n" + encodeCaptured(failed), 0, kSeekEnded);
                }
            } else if (st.MPI_TAG == kSeekGoOn) {
                host.goOn(trial, readBudget(msg, pos));
            } else if (st.MPI_TAG == kSeekStopTrial) {
                host.stop(trial, msg.substr(pos));
            }
        }
        for (auto& n : host.poll())
            sendString(std::to_string(n.trial) + "\n" + encodeCaptured(n.run), 0, n.ended ? kSeekEnded : kSeekWaiting);
        if (now() - beat >= 1.0) {
            MPI_Send(nullptr, 0, MPI_BYTE, 0, kBeat, MPI_COMM_WORLD);
            beat = now();
        }
        if (!flag) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

/// Rank 0's side: the search (on its own thread) hands trial steps to this runner; the
/// main thread, the only one that calls MPI, sends them to the ranks (or to rank 0's own
/// host), stores the runs that end and hands back where each trial stands.
class MpiTrials : public TrialRunner {
public:
    MpiTrials(RunStore& store, int size, int threads, const std::atomic<bool>* cancel)
        : store_(store), threads_(threads), host_(1, cancel), ranks_(static_cast<std::size_t>(size)) {
        for (auto& r : ranks_) r.heard = now();
    }

    // ---- the search's thread
    void run(const std::vector<TrialTask>& tasks, const std::function<void(const TrialReport&)>& report) override {
        std::unique_lock lock(mutex_);
        for (const auto& task : tasks) {
            Tracked& t = trials_[task.trial];
            t.budget = task.budget;
            expected_.insert(task.trial);
            if (task.start) {
                t.scenario = task.scenario;
                t.text = storedScenarioText(task.scenario);
                t.meta = task.meta;
                t.state = Tracked::Waiting; // not counted as load while its rank is picked
                t.rank = pickRank();
                t.state = Tracked::Stepping;
                sendStart(task.trial, t);
            } else if (t.state == Tracked::Replaying) {
                t.pending = Tracked::GoOn; // once the replay waits where the trial waited
            } else {
                t.state = Tracked::Stepping;
                outbox_.push_back({t.rank, kSeekGoOn, std::to_string(task.trial) + "\n" + budgetWire(task.budget)});
            }
        }
        deliver(lock, report);
    }

    void stop(const std::vector<int>& trials, const std::string& reason,
              const std::function<void(const TrialReport&)>& report) override {
        std::unique_lock lock(mutex_);
        for (int trial : trials) {
            Tracked& t = trials_[trial];
            if (t.state == Tracked::Ended) continue;
            expected_.insert(trial);
            t.reason = reason;
            if (t.state == Tracked::Replaying) {
                t.pending = Tracked::Stop;
            } else {
                t.state = Tracked::Stopping;
                outbox_.push_back({t.rank, kSeekStopTrial, std::to_string(trial) + "\n" + reason});
            }
        }
        deliver(lock, report);
    }

    // ---- the main thread: returns when `done` is set (the search returned)
    void pump(const std::atomic<bool>& done, double timeout) {
        while (!done.load()) {
            const double began = now();
            bool busy = false;
            std::vector<Message> out;
            {
                std::lock_guard lock(mutex_);
                out.assign(outbox_.begin(), outbox_.end());
                outbox_.clear();
            }
            for (const auto& m : out) {
                busy = true;
                if (m.rank == 0) {
                    toHost(m);
                } else if (ranks_[static_cast<std::size_t>(m.rank)].alive &&
                           !sendWithin(m.payload, m.rank, m.tag, timeout)) {
                    lose(m.rank, "a message to it did not complete");
                }
            }
            for (auto& n : host_.poll()) {
                busy = true;
                news(0, n.trial, n.ended, n.run);
            }
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                busy = true;
                const int from = st.MPI_SOURCE;
                std::string msg;
                if (!receiveWithin(st, timeout, msg)) {
                    lose(from, "it died while sending");
                } else if (ranks_[static_cast<std::size_t>(from)].alive) {
                    ranks_[static_cast<std::size_t>(from)].heard = now();
                    if (st.MPI_TAG == kSeekWaiting || st.MPI_TAG == kSeekEnded) {
                        std::size_t pos = 0;
                        const int trial = std::atoi(field(msg, pos).c_str());
                        try {
                            news(from, trial, st.MPI_TAG == kSeekEnded, decodeCaptured(msg.substr(pos)));
                        } catch (const std::exception& e) {
                            std::fprintf(stderr, "\nfogstudio-cli: rank %d sent a damaged trial (%s)\n", from, e.what());
                            lose(from, "it sent damaged data");
                        }
                    }
                }
            }
            const double t = now();
            // Rank 0 busy for a while (waiting on a dying rank's message, a slow write): the
            // others could not be heard meanwhile (a rank blocked sending to it cannot beat),
            // so that time does not count against them.
            if (t - began > 1.0)
                for (auto& r : ranks_) r.heard = std::max(r.heard, t);
            for (int r = 1; r < static_cast<int>(ranks_.size()); ++r)
                if (ranks_[static_cast<std::size_t>(r)].alive && t - ranks_[static_cast<std::size_t>(r)].heard > timeout)
                    lose(r, "silent for " + std::to_string(static_cast<int>(t - ranks_[static_cast<std::size_t>(r)].heard)) + " s");
            if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    /// Ranks still alive (rank 0 included), and ranks lost.
    std::vector<int> alive() const {
        std::vector<int> v;
        for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
            if (ranks_[static_cast<std::size_t>(r)].alive) v.push_back(r);
        return v;
    }
    int lostRanks() const { return static_cast<int>(ranks_.size() - alive().size()); }
    int replayed() const { return replayed_; }
    std::map<int, int> stepsPerRank() const { return steps_; }

private:
    struct Message {
        int rank;
        int tag;
        std::string payload;
    };
    struct Tracked {
        enum State { Stepping, Waiting, Stopping, Replaying, Ended } state = Stepping;
        enum Pending { None, GoOn, Stop } pending = None;
        int rank = 0;
        Scenario scenario;
        std::string text;
        NewRun meta;
        TrialBudget budget;  ///< of the step under way, or where it waits
        TrialBudget waited;  ///< where it waits (what a replay runs to)
        std::string reason;
    };
    struct Rank {
        bool alive = true;
        double heard = 0;
    };

    /// The live rank with the fewest trial steps under way (under the mutex).
    int pickRank() const {
        std::map<int, int> load;
        for (int r : alive()) load[r] = 0;
        for (const auto& [id, t] : trials_)
            if ((t.state == Tracked::Stepping || t.state == Tracked::Replaying) && load.count(t.rank)) ++load[t.rank];
        int best = 0, least = -1;
        for (auto [r, n] : load)
            if (least < 0 || n < least) best = r, least = n;
        return best;
    }

    void sendStart(int trial, const Tracked& t, const TrialBudget* to = nullptr) {
        outbox_.push_back({t.rank, kSeekStart,
                           std::to_string(trial) + "\n" + budgetWire(to ? *to : t.budget) + std::to_string(threads_) +
                               "\n" + t.text});
    }

    /// Waits for the expected reports and hands them out on the search's thread.
    void deliver(std::unique_lock<std::mutex>& lock, const std::function<void(const TrialReport&)>& report) {
        while (!expected_.empty() || !inbox_.empty()) {
            cv_.wait(lock, [this] { return !inbox_.empty(); });
            std::vector<TrialReport> got(inbox_.begin(), inbox_.end());
            inbox_.clear();
            for (const auto& r : got) expected_.erase(r.trial);
            lock.unlock();
            for (const auto& r : got)
                if (report) report(r);
            lock.lock();
        }
    }

    void toHost(const Message& m) {
        std::size_t pos = 0;
        const int trial = std::atoi(field(m.payload, pos).c_str());
        if (m.tag == kSeekStart) {
            const TrialBudget b = readBudget(m.payload, pos);
            field(m.payload, pos); // threads
            Scenario s;
            {
                std::lock_guard lock(mutex_);
                s = trials_[trial].scenario;
            }
            host_.start(trial, s, threads_, b);
        } else if (m.tag == kSeekGoOn) {
            host_.goOn(trial, readBudget(m.payload, pos));
        } else if (m.tag == kSeekStopTrial) {
            host_.stop(trial, m.payload.substr(pos));
        }
    }

    /// A trial waits or ended on `rank`: store it when it ended; hand it to the search.
    void news(int rank, int trial, bool ended, const CapturedRun& run) {
        std::lock_guard lock(mutex_);
        auto it = trials_.find(trial);
        if (it == trials_.end() || it->second.rank != rank || it->second.state == Tracked::Ended) return; // stale
        Tracked& t = it->second;
        TrialReport rep;
        rep.trial = trial;
        rep.ended = ended;
        rep.summary = run.summary;
        for (const auto& a : run.records)
            if (a.level == 0) rep.level0.push_back(a);
        if (ended) {
            const CapturedRun& stored = run; // a stopped run comes finished, with the search's reason
            try {
                rep.runId = storeCaptured(store_, t.meta, t.scenario, threads_, stored);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "\nfogstudio-cli: trial %s could not be stored: %s\n", t.meta.name.c_str(), e.what());
            }
            t.state = Tracked::Ended;
            ++steps_[rank];
            inbox_.push_back(std::move(rep));
            cv_.notify_all();
            return;
        }
        t.waited = t.budget;
        if (t.state == Tracked::Replaying) {
            // The replay stands where the lost run stood; the search already knows that.
            t.state = Tracked::Waiting;
            if (t.pending == Tracked::GoOn) {
                t.state = Tracked::Stepping;
                outbox_.push_back({t.rank, kSeekGoOn, std::to_string(trial) + "\n" + budgetWire(t.budget)});
            } else if (t.pending == Tracked::Stop) {
                t.state = Tracked::Stopping;
                outbox_.push_back({t.rank, kSeekStopTrial, std::to_string(trial) + "\n" + t.reason});
            }
            t.pending = Tracked::None;
            return;
        }
        t.state = Tracked::Waiting;
        ++steps_[rank];
        inbox_.push_back(std::move(rep));
        cv_.notify_all();
    }

    /// A rank is gone with the runs it held: each starts again from round 0 on another rank
    /// (the emulator is deterministic: the same run), to where it stood or was going.
    void lose(int rank, const std::string& why) {
        std::lock_guard lock(mutex_);
        auto& r = ranks_[static_cast<std::size_t>(rank)];
        if (!r.alive) return;
        r.alive = false;
        int again = 0;
        for (auto& [trial, t] : trials_) {
            if (t.rank != rank || t.state == Tracked::Ended) continue;
            t.rank = pickRank();
            ++again;
            ++replayed_;
            if (t.state == Tracked::Stepping) {
                sendStart(trial, t); // the step's report comes as usual
            } else {
                // Waiting (or being stopped, or already replaying): run again to where it waited.
                if (t.state == Tracked::Stopping) t.pending = Tracked::Stop;
                t.state = Tracked::Replaying;
                sendStart(trial, t, &t.waited);
            }
        }
        std::fprintf(stderr, "\nfogstudio-cli: rank %d lost (%s): its %d run(s) start again on the other ranks\n", rank,
                     why.c_str(), again);
    }

    RunStore& store_;
    int threads_;
    TrialHost host_;
    std::vector<Rank> ranks_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::map<int, Tracked> trials_;
    std::deque<Message> outbox_;
    std::deque<TrialReport> inbox_;
    std::set<int> expected_;
    std::map<int, int> steps_;
    int replayed_ = 0;
};

} // namespace

int runSeekMpi(const CliOptions& o, const std::function<SeekSpec()>& makeSpec, const SeekCallbacks& cb) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    installInterruptHandler();
    if (rank != 0) {
        const int rc = seekWorker(interruptFlag());
        MPI_Finalize();
        return rc;
    }
    auto stopAll = [&](int code) {
        for (int r = 1; r < size; ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, kStop, MPI_COMM_WORLD);
        MPI_Finalize();
        return code;
    };

    SeekSpec spec;
    std::unique_ptr<RunStore> store;
    try {
        spec = makeSpec();
        store = openStore(o);
        if (!store) return stopAll(1);
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return stopAll(2);
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return stopAll(1);
    }

    const double started = now();
    SeekResult result;
    std::string error;
    std::atomic<bool> done{false};
    int lostRanks = 0, replayed = 0;
    std::map<int, int> perRank;
    {
        MpiTrials trials(*store, size, std::max(1, o.threads), interruptFlag()); // --threads per rank
        std::thread search([&] {
            try {
                result = runSeek(
                    spec, *store, trials,
                    [&](const SeekProgress& p) {
                        if (cb.progress) cb.progress(p, spec);
                    },
                    interruptFlag());
            } catch (const std::exception& e) {
                error = e.what();
            }
            done = true;
        });
        trials.pump(done, rankTimeout());
        search.join();
        lostRanks = trials.lostRanks();
        replayed = trials.replayed();
        perRank = trials.stepsPerRank();
        // Stop the live ranks (a rank that died is not waited for).
        for (int r : trials.alive())
            if (r != 0) sendWithin(std::string(), r, kStop, 5.0);
    }
    if (cb.finished) cb.finished();
    if (!error.empty()) {
        std::cerr << error << "\n";
        if (lostRanks) MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Finalize();
        return 2;
    }
    const int rc = cb.report ? cb.report(spec, result, *store) : 0;
    std::cout << "search over " << size << " MPI ranks in " << std::fixed;
    std::cout.precision(1);
    std::cout << now() - started << " s; trial steps per rank:";
    for (auto [r, n] : perRank) std::cout << " rank " << r << ": " << n;
    if (lostRanks)
        std::cout << "; " << lostRanks << " rank(s) lost, " << replayed
                  << " run(s) started again on the others (same results: the emulator is deterministic)";
    std::cout << "\n";
    std::cout.flush();
    if (lostRanks) MPI_Abort(MPI_COMM_WORLD, rc); // a dead peer can make MPI_Finalize wait forever
    MPI_Finalize();
    return rc;
}

#endif

} // namespace fog::cli
