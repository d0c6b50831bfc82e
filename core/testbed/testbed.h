#pragma once
// The testbed (docs/testbed.md): plays a plan (testbed_plan.h) on this machine, one process
// per aggregator (the root and a tiered tree's intermediate ones), trainer, relay and shared cell, each in its own network namespace, links
// as veth pairs shaped with tc, models and updates over TCP. Needs root (netns.h).

#include "core/testbed/netns.h"
#include "core/testbed/testbed_plan.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace fog::testbed {

struct TestbedOptions {
    /// Bandwidths are divided by it, compute times and latencies multiplied: a scenario the
    /// machine cannot keep up with runs slower and its times are divided back.
    double dilation = 1.0;
    /// How latency is added: in the kernel (netem, when it exists), in user space (the
    /// receiver holds a message for its path's latency after its last byte), or the kernel's
    /// when it has netem, else user space.
    enum class Latency { Auto, Kernel, UserSpace };
    Latency latency = Latency::Auto;
    /// Relays (nodes that neither train nor aggregate) as the emulator models them: an
    /// application that receives each message whole before sending it on (store and forward,
    /// a TCP connection per hop). False: a router namespace forwarding packets (the kernel).
    bool storeAndForward = false;
    /// When the plan trains (TestbedPlan::training): the trainers run their jobs' local work
    /// and send the updates, the root aggregates them and evaluates the model. False
    /// (--no-training): the processes only move the bytes and hold the updates.
    bool training = true;
    /// How a trainer spends its job's compute time. Paced: it trains, then holds the update
    /// until the compute time the emulator drew (times the dilation) has passed since the
    /// model came in, so the network sees the predicted timeline; a training that takes
    /// longer sends late (TestbedResult::lateJobs). Real: it sends as soon as its training is
    /// done, so compute times are this machine's (without training: at once).
    enum class Compute { Paced, Real };
    Compute compute = Compute::Paced;
    /// Set (even from a signal handler) to stop: everything is removed, the result says so.
    const std::atomic<bool>* cancel = nullptr;
    /// Progress lines (set-up steps, rounds); may be empty.
    std::function<void(const std::string&)> log;
    /// Wall seconds the rounds may take before the run is given up (0: 30 s plus three times
    /// the prediction, dilated).
    double timeoutS = 0.0;
};

/// The header before every model and update on the wire (the payload, the emulator's byte
/// count, follows it).
inline constexpr double kMessageHeaderBytes = 40.0;

/// A job as measured: scenario seconds from the first round's start (wall / dilation).
struct MeasuredJob {
    int trainerBox = -1;
    double dispatchS = 0.0, receivedS = 0.0, computedS = 0.0, arrivedS = 0.0;
    double downBytes = 0.0, upBytes = 0.0; ///< payload moved (with the 40-byte header)
    double trainWallS = -1.0; ///< wall seconds the local training took in the trainer (-1: not trained)
    double trainLoss = kNaN;  ///< the local work's mean training loss
    std::int64_t samples = 0; ///< samples the local work trained on
    bool lost = false; ///< the prediction lost it (PlanJob::lost): no update was waited for
    /// Its update was among those the round aggregated (else lost, or late and discarded:
    /// arrivedS is then not measured).
    bool aggregated = false;
};

struct MeasuredRound {
    int round = 0;
    double startS = 0.0, endS = 0.0;
    std::vector<MeasuredJob> jobs;
    /// Computed by the processes when they train (else NaN): the participants' sample-weighted
    /// training loss, and the aggregated model's test loss and accuracy after the rounds the
    /// prediction evaluated.
    double trainLoss = kNaN, testLoss = kNaN, testAccuracy = kNaN;
    /// The round aggregated the updates the prediction's did (n-sync's first n can differ).
    bool samePredictedUpdates = true;
    /// The box that aggregated it: the root (0), or an intermediate aggregator for a sub-round
    /// of a tiered tree (TestbedResult::subRounds, as TestbedPlan::subRounds).
    int aggregatorBox = 0;
};

/// Bytes the kernel counted on a link, per direction (IP, TCP and Ethernet headers and the
/// ACKs of the other direction included).
struct MeasuredLink {
    int box = -1;              ///< the box below the link
    double wireUpBytes = 0.0;  ///< sent by the box below (its uplink's tx)
    double wireDownBytes = 0.0;
    double payloadUpBytes = 0.0, payloadDownBytes = 0.0;
};

struct TestbedResult {
    bool cancelled = false;
    std::vector<MeasuredRound> rounds; ///< the rounds finished (all, unless cancelled)
    /// The intermediate aggregators' sub-rounds (tiered trees), index for index as
    /// TestbedPlan::subRounds; their processes report them at the end (empty after a cancel).
    /// A session job of `rounds` has the intermediate's own times: model in, change sent.
    std::vector<MeasuredRound> subRounds;
    std::vector<MeasuredLink> links;   ///< one per box with a parent
    KernelFeatures kernel;
    bool kernelLatency = false; ///< netem added the latency; else user space
    bool storeAndForward = false; ///< relays stored and forwarded messages (else routed packets)
    bool trained = false;      ///< the processes trained (the plan trains and training was asked for)
    bool computeReal = false;  ///< Compute::Real
    int lateJobs = 0; ///< paced jobs whose training outlasted their compute time (their update left late)
    /// The final model's test loss and accuracy, when the processes trained (NaN otherwise,
    /// and after a cancel): as the engine's summary has them.
    double finalTestLoss = kNaN, finalTestAccuracy = kNaN;
    /// Availability played: when each process was stopped (SIGSTOP) and resumed (SIGCONT),
    /// scenario seconds from the first round's start (toS: the resume, or the end).
    struct Stopped {
        int box = -1;
        double fromS = 0.0, toS = 0.0;
    };
    std::vector<Stopped> stopped;
    int availabilityChanges = 0; ///< SIGSTOPs and SIGCONTs sent as the plan has them
    double dilation = 1.0;
    /// TCP segments the aggregator and trainers sent, and how many of them were sent again
    /// (their namespaces' /proc/net/snmp): losses at the shaped queues.
    double tcpSegmentsOut = 0.0, tcpRetransmitted = 0.0;
    double setupSeconds = 0.0;
    double wallSeconds = 0.0; ///< of the rounds
    int processes = 0;
};

/// Plays `plan`. Throws TestbedError when it cannot (privileges first: nothing is set up
/// then); every process, namespace and link it made is gone when it returns or throws.
TestbedResult runTestbed(const TestbedPlan& plan, const TestbedOptions& options);

} // namespace fog::testbed
