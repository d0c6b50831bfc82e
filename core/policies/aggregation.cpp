#include "core/policies/aggregation.h"

#include "core/system/metrics.h"

#include <algorithm>
#include <cmath>

namespace fog {

void ServerModel::applyGradient(const Params& g, double lr, double momentum, double weightDecay,
                                double scale) {
    if (g.empty() || !w_ || w_->empty()) {
        ++version_;
        return;
    }
    auto next = std::make_shared<Params>(*w_);
    Params& w = *next;
    if (velocity_.size() != w.size()) velocity_.assign(w.size(), 0.0f);
    const float m = static_cast<float>(momentum), wd = static_cast<float>(weightDecay);
    const float step = static_cast<float>(lr * scale);
    for (std::size_t i = 0; i < w.size(); ++i) {
        const float d = g[i] + wd * w[i];
        velocity_[i] = momentum > 0 ? m * velocity_[i] + d : d;
        w[i] -= step * velocity_[i];
    }
    set(std::move(next));
}

void ServerModel::addDelta(const Params& delta, double scale) {
    if (delta.empty() || !w_ || w_->empty()) {
        ++version_;
        return;
    }
    auto next = std::make_shared<Params>(*w_);
    if (optimizer_.active() && scale == 1.0) {
        optimizer_.step(*next, delta);
        set(std::move(next));
        return;
    }
    const float s = static_cast<float>(scale);
    for (std::size_t i = 0; i < next->size(); ++i) (*next)[i] += s * delta[i];
    set(std::move(next));
}

Params weightedSum(const std::vector<Contribution>& contributions, const std::vector<double>& weights) {
    Params out;
    for (std::size_t k = 0; k < contributions.size(); ++k) {
        const Params& u = contributions[k].update;
        if (u.empty()) continue;
        if (out.empty()) out.assign(u.size(), 0.0f);
        const float w = static_cast<float>(weights[k]);
        for (std::size_t i = 0; i < u.size(); ++i) out[i] += w * u[i];
    }
    return out;
}

Params meanUpdate(const std::vector<Contribution>& contributions) {
    return weightedSum(contributions,
                       std::vector<double>(contributions.size(), 1.0 / std::max<std::size_t>(1, contributions.size())));
}

Params sampleWeightedUpdate(const std::vector<Contribution>& contributions) {
    double total = 0.0;
    for (const auto& c : contributions) total += static_cast<double>(c.samples);
    std::vector<double> weights;
    for (const auto& c : contributions) weights.push_back(total > 0 ? c.samples / total : 0.0);
    return weightedSum(contributions, weights);
}

std::vector<double> flexibleWeights(const std::vector<Contribution>& contributions,
                                    const std::vector<double>& dataSizes, bool unbiased) {
    std::vector<double> w;
    if (!unbiased) {
        double total = 0.0;
        for (const auto& c : contributions) total += static_cast<double>(c.samples);
        for (const auto& c : contributions) w.push_back(total > 0 ? c.samples / total : 0.0);
        return w;
    }
    double total = 0.0;
    for (double d : dataSizes) total += d;
    for (std::size_t i = 0; i < contributions.size(); ++i) {
        const auto& c = contributions[i];
        const double scale = c.steps > 0 ? static_cast<double>(std::max(c.steps, c.stepsRequested)) / c.steps : 0.0;
        w.push_back(total > 0 ? dataSizes[i] / total * scale : 0.0);
    }
    return w;
}

double fedNovaNorm(int steps, double momentum) {
    if (steps <= 0) return 0.0;
    const double tau = steps;
    if (momentum == 0) return tau;
    const double rho = momentum;
    return (tau - rho * (1 - std::pow(rho, tau)) / (1 - rho)) / (1 - rho);
}

std::vector<double> fedNovaWeights(const std::vector<Contribution>& contributions,
                                   const std::vector<double>& dataSizes, double momentum) {
    double total = 0.0;
    for (double d : dataSizes) total += d;
    std::vector<double> p, a;
    double tauEff = 0.0;
    for (std::size_t i = 0; i < contributions.size(); ++i) {
        p.push_back(total > 0 ? dataSizes[i] / total : 0.0);
        a.push_back(fedNovaNorm(contributions[i].steps, momentum));
        tauEff += p.back() * a.back();
    }
    std::vector<double> w;
    for (std::size_t i = 0; i < contributions.size(); ++i) w.push_back(a[i] > 0 ? p[i] * tauEff / a[i] : 0.0);
    return w;
}

Params scaffoldClientVariate(const Params& ci, const Params& c, const Params& deltaY, int steps, double lr) {
    Params out(deltaY.size(), 0.0f);
    if (steps <= 0 || lr <= 0) return ci.empty() ? out : ci;
    const double scale = 1.0 / (static_cast<double>(steps) * lr);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double cii = ci.empty() ? 0.0 : ci[i];
        const double cc = c.empty() ? 0.0 : c[i];
        out[i] = static_cast<float>(cii - cc - static_cast<double>(deltaY[i]) * scale);
    }
    return out;
}

Params scaffoldRound(ScaffoldVariates& v, const std::vector<Contribution>& contributions,
                     const std::map<int, double>& lr, std::size_t trainers,
                     const std::function<void(int trainer, Params& deltaCi)>& sendUp) {
    Params deltaC;
    for (const auto& r : contributions) {
        if (r.update.empty()) continue;
        if (v.c.empty()) v.c.assign(r.update.size(), 0.0f);
        Params& ci = v.ci[r.trainer];
        const auto it = lr.find(r.trainer);
        Params next = scaffoldClientVariate(ci, v.c, r.update, r.steps, it == lr.end() ? 0.0 : it->second);
        if (deltaC.empty()) deltaC.assign(next.size(), 0.0f);
        if (sendUp) {
            Params sent(next.size());
            for (std::size_t i = 0; i < next.size(); ++i) sent[i] = next[i] - (ci.empty() ? 0.0f : ci[i]);
            sendUp(r.trainer, sent);
            for (std::size_t i = 0; i < next.size(); ++i) deltaC[i] += sent[i];
        } else {
            for (std::size_t i = 0; i < next.size(); ++i) deltaC[i] += next[i] - (ci.empty() ? 0.0f : ci[i]);
        }
        ci = std::move(next);
    }
    if (!deltaC.empty()) {
        const float scale = static_cast<float>(1.0 / static_cast<double>(std::max<std::size_t>(1, trainers)));
        for (std::size_t i = 0; i < v.c.size(); ++i) v.c[i] += scale * deltaC[i];
    }
    return meanUpdate(contributions);
}

std::vector<double> fedBuffWeights(const std::vector<Contribution>& buffer, double exponent) {
    std::vector<double> w;
    const double k = static_cast<double>(std::max<std::size_t>(1, buffer.size()));
    for (const auto& c : buffer) w.push_back(std::pow(1.0 + static_cast<double>(c.staleness), -exponent) / k);
    return w;
}

double meanLoss(const std::vector<Contribution>& contributions) {
    double sum = 0.0, n = 0.0;
    for (const auto& c : contributions) {
        sum += c.loss * static_cast<double>(c.samples);
        n += static_cast<double>(c.samples);
    }
    return n > 0 ? sum / n : kNaN;
}

Params weightedModelAverage(const std::vector<ParamsPtr>& models, const std::vector<double>& weights) {
    Params out;
    double total = 0.0;
    for (double w : weights) total += w;
    for (std::size_t k = 0; k < models.size(); ++k) {
        if (!models[k] || models[k]->empty()) continue;
        if (out.empty()) out.assign(models[k]->size(), 0.0f);
        const float w = static_cast<float>(total > 0 ? weights[k] / total : 1.0 / models.size());
        for (std::size_t i = 0; i < out.size(); ++i) out[i] += w * (*models[k])[i];
    }
    return out;
}

} // namespace fog
