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

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
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

#endif

} // namespace fog::cli
