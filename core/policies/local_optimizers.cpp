// Local optimisers, described once: each is LibTorch 1.13's optimiser of the same name, step
// for step (core/model/learner.cpp; test_training compares them with torch::optim).

#include "core/policies/local_optimizers.h"
#include "core/policies/policy_descriptor.h"

namespace fog {

const std::vector<PolicyInfo>& localOptimizerInfos() {
    static const std::vector<PolicyInfo> infos = [] {
        const auto key = [](std::string k, double def, double min, double max, std::string help) {
            return realParam("training." + std::move(k), def, min, max, std::move(help));
        };
        const auto lr = key("learning_rate", 0.01, 0.0, 1e6, "eta (with training.schedule)");
        const auto momentum = key("momentum", 0.0, 0.0, 0.999999, "momentum mu");
        const auto wd = key("weight_decay", 0.0, 0.0, 1e6, "weight decay lambda");
        const auto b1 = key("beta1", 0.9, 0.0, 0.999999, "first-moment decay beta_1");
        const auto b2 = key("beta2", 0.999, 0.0, 0.999999, "second-moment decay beta_2");
        const auto eps = key("epsilon", 1e-8, 0.0, 1.0, "epsilon added to sqrt(v_hat)");
        std::vector<PolicyInfo> v;
        v.push_back({"sgd",
                     "d = g + lambda w; b = mu b + d (b starts at d); w -= eta b (mu 0: w -= eta d), "
                     "as torch.optim.SGD.",
                     "Robbins and Monro 1951; torch.optim.SGD (LibTorch 1.13)",
                     {lr, momentum, wd}});
        v.push_back({"nesterov",
                     "d = g + lambda w; b = mu b + d (b starts at d); w -= eta (d + mu b), as "
                     "torch.optim.SGD(nesterov=True); needs training.momentum > 0.",
                     "Sutskever et al., ICML 2013; torch.optim.SGD (LibTorch 1.13)",
                     {lr, momentum, wd}});
        v.push_back({"adam",
                     "g += lambda w (L2); m = beta_1 m + (1 - beta_1) g; v = beta_2 v + (1 - beta_2) g^2; "
                     "w -= (eta / (1 - beta_1^t)) m / (sqrt(v) / sqrt(1 - beta_2^t) + epsilon), as "
                     "torch.optim.Adam.",
                     "Kingma and Ba, ICLR 2015; torch.optim.Adam (LibTorch 1.13)",
                     {lr, wd, b1, b2, eps}});
        v.push_back({"adamw",
                     "w *= 1 - eta lambda (decoupled weight decay), then Adam's step without L2, as "
                     "torch.optim.AdamW.",
                     "Loshchilov and Hutter, ICLR 2019; torch.optim.AdamW (LibTorch 1.13)",
                     {lr, wd, b1, b2, eps}});
        return v;
    }();
    return infos;
}

LocalOptimizer localOptimizerOf(const std::string& name) {
    if (name == "nesterov") return LocalOptimizer::Nesterov;
    if (name == "adam") return LocalOptimizer::Adam;
    if (name == "adamw") return LocalOptimizer::AdamW;
    return LocalOptimizer::Sgd;
}

} // namespace fog
