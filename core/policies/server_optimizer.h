#pragma once
// Server optimisers (Reddi et al., Adaptive Federated Optimization, ICLR 2021, Algorithm 2):
// the aggregated change Delta of a round is a pseudo-gradient (-Delta) that the aggregator
// steps with momentum or an adaptive rate instead of adding it as it is. Plain loops over
// flat vectors; the state is kept in double per aggregator for the whole run.

#include "core/model/learner.h"
#include "core/policies/policy_info.h"
#include "core/spec/scenario.h"

#include <string>
#include <vector>

namespace fog {

struct ServerOptimizerConfig {
    enum class Kind { None, FedAvgM, FedAdagrad, FedAdam, FedYogi };
    Kind kind = Kind::None;
    double learningRate = 1.0; ///< eta
    double momentum = 0.9;     ///< fedavgm's beta
    double beta1 = 0.9, beta2 = 0.99;
    double tau = 1e-3;
};

/// The names training.server_optimizer and aggregate.server_optimizer take, with formula,
/// source and parameters (listed by `fogstudio-cli policies`), in order.
const std::vector<PolicyInfo>& serverOptimizerInfos();
/// The learning rate `name` uses when training.server_learning_rate is 0.
double defaultServerLearningRate(const std::string& name);
/// The configuration of `name` (empty: training.server_optimizer) with the training
/// section's parameters. Throws std::invalid_argument for an unknown name.
ServerOptimizerConfig serverOptimizerConfig(const TrainingSpec& t, const std::string& name = {});

class ServerOptimizer {
public:
    explicit ServerOptimizer(ServerOptimizerConfig c = {}) : c_(c) {}
    const ServerOptimizerConfig& config() const { return c_; }
    bool active() const { return c_.kind != ServerOptimizerConfig::Kind::None; }
    /// One server step on `x` with the round's aggregated change `delta` (see the .cpp).
    void step(Params& x, const Params& delta);
    const std::vector<double>& momentum() const { return m_; } ///< m_t (fedavgm: its buffer)
    const std::vector<double>& variance() const { return v_; } ///< v_t (adaptive ones)

private:
    ServerOptimizerConfig c_;
    std::vector<double> m_, v_;
};

} // namespace fog
