// Server optimisers: each a formula from Reddi et al. (ICLR 2021, Algorithm 2; FedAvgM from
// Hsu et al. 2019), described once here for the CLI, the studio and docs/learning.md.

#include "core/policies/server_optimizer.h"
#include "core/policies/policy_descriptor.h"

#include <cmath>
#include <stdexcept>

namespace fog {

namespace {
const char* kReddi = "Reddi et al., Adaptive Federated Optimization, ICLR 2021 (Algorithm 2)";

PolicyParamInfo trainingKey(std::string key, double def, double min, double max, std::string help) {
    return realParam("training." + key, def, min, max, std::move(help));
}
} // namespace

const std::vector<PolicyInfo>& serverOptimizerInfos() {
    static const std::vector<PolicyInfo> infos = [] {
        const auto lr = [](const char* def) {
            return trainingKey("server_learning_rate", 0.0, 0.0, 1e6,
                               std::string("eta; 0 = this optimiser's default ") + def);
        };
        const auto beta1 = trainingKey("server_beta1", 0.9, 0.0, 0.999999, "first-moment decay beta_1");
        const auto beta2 = trainingKey("server_beta2", 0.99, 0.0, 0.999999, "second-moment decay beta_2");
        const auto tau = trainingKey("server_tau", 1e-3, 1e-12, 1e6, "adaptivity tau (v starts at tau^2)");
        std::vector<PolicyInfo> v;
        v.push_back({"none", "w += Delta, Delta the aggregated change of the round (today's FedAvg).",
                     "McMahan et al., AISTATS 2017", {}});
        v.push_back({"fedavgm",
                     "Server momentum: m = beta m + Delta; w += eta m (m starts at 0). With beta 0 and "
                     "eta 1 it is FedAvg.",
                     "Hsu et al., Measuring the effects of non-identical data distribution, 2019; " +
                         std::string(kReddi),
                     {lr("1"), trainingKey("server_momentum", 0.9, 0.0, 0.999999, "momentum beta")}});
        v.push_back({"fedadagrad",
                     "m = beta_1 m + (1 - beta_1) Delta; v = v + Delta^2; w += eta m / (sqrt(v) + tau), "
                     "per coordinate; m starts at 0, v at tau^2.",
                     kReddi, {lr("0.1"), beta1, tau}});
        v.push_back({"fedadam",
                     "m = beta_1 m + (1 - beta_1) Delta; v = beta_2 v + (1 - beta_2) Delta^2; "
                     "w += eta m / (sqrt(v) + tau), per coordinate, no bias correction; m starts at 0, "
                     "v at tau^2.",
                     kReddi, {lr("0.1"), beta1, beta2, tau}});
        v.push_back({"fedyogi",
                     "m = beta_1 m + (1 - beta_1) Delta; v = v - (1 - beta_2) Delta^2 sign(v - Delta^2); "
                     "w += eta m / (sqrt(v) + tau), per coordinate; m starts at 0, v at tau^2.",
                     kReddi, {lr("0.01"), beta1, beta2, tau}});
        return v;
    }();
    return infos;
}

double defaultServerLearningRate(const std::string& name) {
    // Flower's strategy defaults (flwr.server.strategy: FedAdagrad and FedAdam eta 0.1,
    // FedYogi 0.01); FedAvgM's 1 makes it FedAvg with momentum.
    if (name == "fedadagrad" || name == "fedadam") return 0.1;
    if (name == "fedyogi") return 0.01;
    return 1.0;
}

ServerOptimizerConfig serverOptimizerConfig(const TrainingSpec& t, const std::string& name) {
    const std::string n = name.empty() ? t.serverOptimizer : name;
    using K = ServerOptimizerConfig::Kind;
    ServerOptimizerConfig c;
    if (n == "none")
        c.kind = K::None;
    else if (n == "fedavgm")
        c.kind = K::FedAvgM;
    else if (n == "fedadagrad")
        c.kind = K::FedAdagrad;
    else if (n == "fedadam")
        c.kind = K::FedAdam;
    else if (n == "fedyogi")
        c.kind = K::FedYogi;
    else
        throw std::invalid_argument("unknown server optimizer '" + n + "'");
    c.learningRate = t.serverLearningRate > 0 ? t.serverLearningRate : defaultServerLearningRate(n);
    c.momentum = t.serverMomentum;
    c.beta1 = t.serverBeta1;
    c.beta2 = t.serverBeta2;
    c.tau = t.serverTau;
    return c;
}

void ServerOptimizer::step(Params& x, const Params& delta) {
    using K = ServerOptimizerConfig::Kind;
    const std::size_t n = x.size();
    if (c_.kind == K::None) {
        for (std::size_t i = 0; i < n; ++i) x[i] += delta[i];
        return;
    }
    if (m_.size() != n) {
        m_.assign(n, 0.0);
        v_.assign(c_.kind == K::FedAvgM ? 0 : n, c_.tau * c_.tau); // v_{-1} = tau^2 (Algorithm 2)
    }
    const double eta = c_.learningRate;
    if (c_.kind == K::FedAvgM) {
        for (std::size_t i = 0; i < n; ++i) {
            m_[i] = c_.momentum * m_[i] + static_cast<double>(delta[i]);
            x[i] = static_cast<float>(static_cast<double>(x[i]) + eta * m_[i]);
        }
        return;
    }
    const double b1 = c_.beta1, b2 = c_.beta2;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = delta[i];
        const double d2 = d * d;
        m_[i] = b1 * m_[i] + (1 - b1) * d;
        switch (c_.kind) {
        case K::FedAdagrad:
            v_[i] = v_[i] + d2;
            break;
        case K::FedAdam:
            v_[i] = b2 * v_[i] + (1 - b2) * d2;
            break;
        case K::FedYogi: {
            const double diff = v_[i] - d2;
            const double sign = diff > 0 ? 1.0 : diff < 0 ? -1.0 : 0.0;
            v_[i] = v_[i] - (1 - b2) * d2 * sign;
            break;
        }
        default:
            break;
        }
        x[i] = static_cast<float>(static_cast<double>(x[i]) + eta * m_[i] / (std::sqrt(v_[i]) + c_.tau));
    }
}

} // namespace fog
