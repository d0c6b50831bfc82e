#pragma once
// The pilot phase of the calibrated planners (issue 18): before planning, a few trainers run
// a few local steps from the initial model, as ordinary dispatches (their virtual time, cost
// and energy count in the run), with the learner's probes on (core/model/learner.h,
// StepProbe). From what they measure, estimatePilot() derives the constants the AdaCoOpt
// and ToN planners need: smoothness along the gradient, per-sample gradient variance,
// gradient divergence between trainers, the loss's per-step contraction and floor, the
// step-time spread per node, and a loss-to-accuracy relation that turns a planner's loss
// target into a predicted test accuracy. docs/policies.md, "Calibrated planners".

#include "core/model/learner.h"

#include <limits>
#include <string>
#include <vector>

namespace fog {

/// What a planner asks of the engine before it starts (0 trainers: no pilot).
struct PilotRequest {
    int trainers = 0;
    int steps = 0;
    std::string by; ///< the policy that asked ("sync.policy adacoopt"), for messages
    int aggregator = -1;        ///< where the pilot trainers' model comes from
    std::vector<int> candidates; ///< trainers in order of preference (the first online ones run)
};

/// One pilot trainer's dispatch, as measured.
struct PilotTrace {
    int node = -1;
    std::string id;
    int batch = 0;
    double nominalStepSeconds = 0.0;  ///< batch / throughput (the noise-free step)
    std::vector<double> stepSeconds;  ///< virtual duration of each step
    double commSeconds = 0.0;         ///< model down + update up
    std::vector<StepProbe> probes;    ///< empty in a timing-only run
    Params firstGradient;
    double testLoss = std::numeric_limits<double>::quiet_NaN();     ///< model after its steps
    double testAccuracy = std::numeric_limits<double>::quiet_NaN();
};

/// F_s = floor + amplitude q^s, least squares over s = 0..n-1 with 0 <= floor <= floorMax
/// and 0 < q < 1 (q on a fine grid, floor and amplitude exact for each q).
struct DecayFit {
    double floor = 0.0;
    double amplitude = 0.0;
    double q = 1.0;
    double rms = 0.0; ///< root mean square residual
};
DecayFit fitExponentialDecay(const std::vector<double>& losses, double floorMax);

/// Curvature of the loss along the probe's gradient, by a central difference:
/// (F(w - lr g) + F(w + lr g) - 2 F(w)) / (lr^2 |g|^2), exact for a quadratic (the Rayleigh
/// quotient g'Hg / g'g), error O(lr^2) otherwise (the odd terms cancel).
double curvatureAlongGradient(const StepProbe& p);

/// Test accuracy as a function of test loss: acc = exp(-k loss), k the median of
/// -ln(acc) / loss over the given (loss, accuracy) points (the pilot trainers' models after
/// their steps). Accuracy 1 at loss 0, and with k = 1 (no points) exact for a uniform
/// prediction over K classes (loss ln K, accuracy 1/K). An approximation: it extrapolates
/// from the first steps of training to the planner's target.
struct LossAccuracyMap {
    double k = 1.0;
    bool fitted = false;
    double accuracyAt(double loss) const;
    double lossAt(double accuracy) const;
};
LossAccuracyMap fitLossAccuracy(const std::vector<std::pair<double, double>>& lossAccuracy);

struct PilotEstimates {
    bool measuredLoss = false; ///< a training run: the loss constants are measured
    int trainers = 0, steps = 0;
    double startTime = 0.0, endTime = 0.0; ///< virtual seconds
    double cost = 0.0;                     ///< the run's cost when the pilot ended
    double learningRate = 0.0;
    int batch = 0;
    // Loss constants (training runs).
    double initialLoss = kNaNPilot();     ///< F(w0): test loss of the initial model
    double initialAccuracy = kNaNPilot();
    double lossFloor = kNaNPilot();       ///< F*: floor of the fitted decay
    double contraction = kNaNPilot();     ///< q per local step
    double strongConvexity = kNaNPilot(); ///< c = (1 - q) / lr, so that q = 1 - lr c
    double smoothness = kNaNPilot();      ///< L (beta): median curvature along the gradient
    double gradientVariance = kNaNPilot(); ///< sigma^2 of one sample's gradient
    double gradientNormSq = kNaNPilot();  ///< ||grad F(w0)||^2 (noise removed)
    double lipschitz = kNaNPilot();       ///< rho ~ ||grad F(w0)||
    double divergence = kNaNPilot();      ///< delta: ||grad F_i - grad F|| between trainers
    LossAccuracyMap accuracy;
    // Step times.
    struct NodeSteps {
        int node = -1;
        std::string id;
        double meanSeconds = 0.0; ///< per step of the pilot's batch
        double cv = 0.0;          ///< coefficient of variation of the step time
    };
    std::vector<NodeSteps> nodes;
    std::vector<double> noiseRatios; ///< measured step / nominal step, all pilot steps
    double meanCommSeconds = 0.0;

    static double kNaNPilot() { return std::numeric_limits<double>::quiet_NaN(); }
    /// One line for the plan event: "pilot=3x10 pilot_time_s=... L=... sigma2=...".
    std::string describe() const;
};

/// The estimates from the traces (`initial` = test loss and accuracy of w0; NaN in a
/// timing-only run, where only the step times are estimated).
PilotEstimates estimatePilot(const std::vector<PilotTrace>& traces, double learningRate, double initialLoss,
                             double initialAccuracy);

/// The mean of max_i (steps_i x nominal_i x noise + comm_i) over rounds, drawing the noise
/// from the pilot's measured ratios (bootstrap, fixed seed): the expected round time of a
/// round that waits for every trainer. Without ratios the noise is 1.
double expectedSlowestSeconds(const std::vector<double>& computeSeconds, const std::vector<double>& commSeconds,
                              const std::vector<double>& noiseRatios, int stepsPerRound, int draws = 400);

} // namespace fog
