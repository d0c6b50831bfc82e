// Oort (Lai et al., OSDI 2021): exploit trainers of high statistical utility that are not
// slower than the preferred round duration, explore unseen ones (fastest first).

#include "core/policies/selection_estimates.h"
#include "core/util/portable_math.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace fog {

namespace {

struct OortSettings {
    int k = 0;                  ///< trainers per round
    double targetSeconds = 0.0; ///< T; 0: the k-th shortest expected duration
    double alpha = 0.0;         ///< straggler penalty exponent
    double epsilon = 0.0;       ///< initial exploration fraction
    double epsilonDecay = 0.0;  ///< per round
    double epsilonMin = 0.0;
};

const ParamTable<OortSettings>& oortParams() {
    static const auto t = ParamTable<OortSettings>()
                              .integer("k", &OortSettings::k, 10, 1, "trainers per round")
                              .real("target_s", &OortSettings::targetSeconds, 0.0, 0.0, 1e12,
                                    "preferred round duration T in seconds; 0 = the k-th shortest expected "
                                    "duration among the candidates")
                              .real("alpha", &OortSettings::alpha, 2.0, 0.0, 10.0, "straggler penalty exponent")
                              .real("epsilon", &OortSettings::epsilon, 0.9, 0.0, 1.0, "initial exploration fraction")
                              .real("epsilon_decay", &OortSettings::epsilonDecay, 0.98, 0.0, 1.0,
                                    "exploration factor per round")
                              .real("epsilon_min", &OortSettings::epsilonMin, 0.2, 0.0, 1.0,
                                    "smallest exploration fraction");
    return t;
}

class SelectOort : public SelectionPolicy {
public:
    explicit SelectOort(const OortSettings& s)
        : k_(static_cast<std::size_t>(s.k)), target_(s.targetSeconds), alpha_(s.alpha), epsilon_(s.epsilon),
          decay_(s.epsilonDecay), epsilonMin_(s.epsilonMin) {}

    void observe(int trainer, double loss, double seconds) override {
        // Timing-only runs report no loss: the statistical utility is then the data size.
        seen_[trainer] = {std::isfinite(loss) && loss > 0 ? loss : 1.0, seconds};
    }

    std::vector<int> select(const SystemView& e, int, int, const std::vector<int>& candidates, Rng&) override {
        const std::size_t k = std::min(k_, candidates.size());
        std::vector<std::pair<double, int>> unseen; // (expected seconds, trainer)
        std::vector<std::pair<double, int>> durations;
        for (int t : candidates) {
            auto it = seen_.find(t);
            const double d = it != seen_.end() ? it->second.seconds : expectedRoundSeconds(e, t);
            durations.emplace_back(d, t);
            if (it == seen_.end()) unseen.emplace_back(d, t);
        }
        std::sort(unseen.begin(), unseen.end());
        std::sort(durations.begin(), durations.end());
        const double T = target_ > 0 ? target_ : (k > 0 ? durations[k - 1].first : 0.0);

        std::vector<std::pair<double, int>> exploit; // (-utility, trainer)
        for (int t : candidates) {
            auto it = seen_.find(t);
            if (it == seen_.end()) continue;
            exploit.emplace_back(-utility(static_cast<double>(e.samplesOf(t)), it->second.loss,
                                          it->second.seconds, T),
                                 t);
        }
        std::sort(exploit.begin(), exploit.end());

        const double eps = std::max(epsilonMin_, epsilon_ * pmath::pow(decay_, calls_++));
        std::size_t explore = std::min(unseen.size(), static_cast<std::size_t>(std::lround(eps * k)));
        if (exploit.size() < k - explore) explore = std::min(unseen.size(), k - exploit.size());
        std::vector<int> out;
        for (std::size_t i = 0; i < explore; ++i) out.push_back(unseen[i].second);
        for (std::size_t i = 0; i < exploit.size() && out.size() < k; ++i) out.push_back(exploit[i].second);
        std::sort(out.begin(), out.end());
        return out;
    }

    /// U = n * loss * (T / t)^(alpha * 1[t > T]).
    double utility(double samples, double loss, double seconds, double T) const {
        double u = samples * loss;
        if (T > 0 && seconds > T) u *= pmath::pow(T / seconds, alpha_);
        return u;
    }

private:
    struct Seen {
        double loss = 1.0;
        double seconds = 0.0;
    };
    std::size_t k_;
    double target_, alpha_, epsilon_, decay_, epsilonMin_;
    int calls_ = 0;
    std::map<int, Seen> seen_;
};
} // namespace

FOG_SELECTION_POLICY(selectOortPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "oort";
        d.info.summary = "Oort guided participant selection: utility U_i = n_i * loss_i * (T / "
                         "t_i)^(alpha * 1[t_i > T]) from each trainer's last reported mean loss and round "
                         "duration t_i (expected duration until it has taken part); a fraction epsilon of "
                         "the k slots explores trainers never seen (fastest first), the rest exploit the "
                         "top utilities; epsilon decays by epsilon_decay per round down to epsilon_min.";
        d.info.source = "Lai et al., Oort: efficient federated learning via guided participant selection, "
                        "OSDI 2021";
        d.info.params = oortParams().infos();
        d.order = 50;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectOort>(oortParams().read(p));
        };
        d.perRound = [](const PolicyParams& p) { return oortParams().read(p).k; };
        return d;
    }();
    return d;
}

} // namespace fog
