#include "core/policies/aggregation.h"

#include "core/system/metrics.h"

#include <algorithm>

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
