#include "core/model/learner.h"

#include "core/model/fast_net.h"
#include "core/model/net.h"
#include "core/util/random.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace fog {

using detail::Net;

struct Learner::Impl {
    ModelSpec spec;
    const Dataset* train;
    const Dataset* test;
    torch::Tensor trainX, trainY, testX, testY;
    std::uint64_t id; ///< key of this learner's per-thread network replicas
    std::size_t parameterCount = 0;
    std::vector<std::int64_t> shapesFanIn; ///< per parameter tensor: fan-in for init
    std::vector<std::int64_t> sizes;
    std::unique_ptr<FastNet> fast; ///< set when the fast path trains (training.backend)

    Net makeNet() const {
        return Net(spec, train->channels, train->height, train->width, train->classes);
    }

    /// Each worker thread keeps one replica per learner; loading parameters into it costs a
    /// memcpy, building a module costs allocations.
    Net& localNet() const {
        thread_local std::unordered_map<std::uint64_t, Net> replicas;
        auto it = replicas.find(id);
        if (it == replicas.end()) it = replicas.emplace(id, makeNet()).first;
        return it->second;
    }
};

namespace {
std::atomic<std::uint64_t> nextLearnerId{1};

/// The local optimisers: the tensor operations of torch::optim::SGD (with and without
/// nesterov), Adam and AdamW step() (LibTorch 1.13), in the same order, so the parameters come
/// out bit for bit the same (test_training checks this against torch::optim). What it leaves
/// out is per-step overhead: LibTorch's optimisers find each parameter's state by a string key
/// that they format with an ostringstream for every parameter at every step. With
/// dropGradients, `bench` measured the emulator at 0.73-0.93 of the plain loop's CPU time
/// (README, Speed). The state can start from a client's kept state and be handed back.
class LocalStepRule {
public:
    LocalStepRule(std::vector<torch::Tensor> params, const LocalJob& job)
        : params_(std::move(params)), first_(params_.size()), second_(params_.size()), kind_(job.optimizer),
          lr_(job.learningRate), momentum_(job.momentum), weightDecay_(job.weightDecay), beta1_(job.beta1),
          beta2_(job.beta2), eps_(job.epsilon) {
        if (job.optimizerState) load(*job.optimizerState);
    }

    /// Drops the gradients instead of zeroing them (set_to_none): backward then hands its
    /// gradient tensors over without a memset and an addition per step. A gradient that is
    /// -0 stays -0 instead of becoming +0, which changes no value (only the sign of zeros).
    void dropGradients() {
        for (auto& p : params_) {
            auto& g = p.mutable_grad();
            if (g.defined()) g.reset();
        }
    }

    void step() {
        torch::NoGradGuard guard;
        if (kind_ == LocalOptimizer::Adam || kind_ == LocalOptimizer::AdamW) {
            adamStep();
            return;
        }
        for (std::size_t i = 0; i < params_.size(); ++i) {
            auto& p = params_[i];
            if (!p.grad().defined()) continue;
            auto d = p.grad().data();
            if (weightDecay_ != 0) d = d.add(p.data(), weightDecay_);
            if (momentum_ != 0) {
                auto& buf = first_[i];
                if (!buf.defined())
                    buf = torch::clone(d).detach();
                else
                    buf.mul_(momentum_).add_(d, 1 - kDampening);
                if (kind_ == LocalOptimizer::Nesterov)
                    d = d.add(buf, momentum_);
                else
                    d = buf;
            }
            p.data().add_(d, -1 * lr_);
        }
    }

    OptimizerStatePtr save() const {
        auto s = std::make_shared<OptimizerState>();
        s->step = step_;
        auto flat = [&](const std::vector<torch::Tensor>& ts, Params& out) {
            for (const auto& t : ts)
                if (!t.defined()) return; // SGD's buffer before its first step: none
            for (const auto& t : ts) {
                auto c = t.detach().contiguous();
                out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
            }
        };
        flat(first_, s->first);
        flat(second_, s->second);
        return s;
    }

private:
    void adamStep() {
        ++step_;
        for (std::size_t i = 0; i < params_.size(); ++i) {
            auto& p = params_[i];
            if (!p.grad().defined()) continue;
            auto grad = p.grad();
            if (!first_[i].defined()) {
                first_[i] = torch::zeros_like(p, torch::MemoryFormat::Preserve);
                second_[i] = torch::zeros_like(p, torch::MemoryFormat::Preserve);
            }
            auto& expAvg = first_[i];
            auto& expAvgSq = second_[i];
            const double biasCorrection1 = 1 - std::pow(beta1_, static_cast<double>(step_));
            const double biasCorrection2 = 1 - std::pow(beta2_, static_cast<double>(step_));
            if (kind_ == LocalOptimizer::AdamW) {
                if (weightDecay_ != 0) p.mul_(1 - lr_ * weightDecay_);
            } else if (weightDecay_ != 0) {
                grad = grad.add(p, weightDecay_);
            }
            expAvg.mul_(beta1_).add_(grad, 1 - beta1_);
            expAvgSq.mul_(beta2_).addcmul_(grad, grad, 1 - beta2_);
            const torch::Tensor denom = (expAvgSq.sqrt() / std::sqrt(biasCorrection2)).add_(eps_);
            const double stepSize = lr_ / biasCorrection1;
            p.addcdiv_(expAvg, denom, -stepSize);
        }
    }

    void load(const OptimizerState& s) {
        step_ = s.step;
        auto unflat = [&](const Params& flat, std::vector<torch::Tensor>& out) {
            if (flat.empty()) return;
            std::size_t offset = 0;
            for (std::size_t i = 0; i < params_.size(); ++i) {
                const auto n = static_cast<std::size_t>(params_[i].numel());
                if (offset + n > flat.size()) throw ModelError("internal: optimiser state of the wrong size");
                out[i] = torch::empty_like(params_[i], torch::MemoryFormat::Contiguous);
                std::memcpy(out[i].data_ptr<float>(), flat.data() + offset, n * sizeof(float));
                offset += n;
            }
        };
        unflat(s.first, first_);
        unflat(s.second, second_);
    }

    static constexpr double kDampening = 0.0;
    std::vector<torch::Tensor> params_;
    std::vector<torch::Tensor> first_, second_; ///< momentum buffer or exp_avg; exp_avg_sq
    LocalOptimizer kind_;
    double lr_, momentum_, weightDecay_, beta1_, beta2_, eps_;
    std::int64_t step_ = 0;
};

/// Adds the algorithm's terms to the gradients of one step, before the optimiser sees them:
/// FedProx's mu (w - w_start) and SCAFFOLD's correction c - c_i.
class GradientTerms {
public:
    GradientTerms(const std::vector<torch::Tensor>& params, const LocalJob& job) : mu_(job.proxMu) {
        auto split = [&](const Params& flat, std::vector<torch::Tensor>& out) {
            std::size_t offset = 0;
            for (const auto& p : params) {
                const auto n = p.numel();
                out.push_back(torch::from_blob(const_cast<float*>(flat.data() + offset), p.sizes()).clone());
                offset += static_cast<std::size_t>(n);
            }
        };
        if (mu_ != 0) split(*job.start, start_);
        if (job.correction) split(*job.correction, correction_);
    }
    bool any() const { return !start_.empty() || !correction_.empty(); }
    void apply(std::vector<torch::Tensor>& params) const {
        torch::NoGradGuard guard;
        for (std::size_t i = 0; i < params.size(); ++i) {
            auto& g = params[i].mutable_grad();
            if (!g.defined()) continue;
            if (!start_.empty()) g.add_(params[i].data() - start_[i], mu_);
            if (!correction_.empty()) g.add_(correction_[i]);
        }
    }

private:
    double mu_;
    std::vector<torch::Tensor> start_, correction_;
};

/// Flattened gradients of `params` (zeros where a gradient is undefined).
torch::Tensor flatGradient(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> parts;
    parts.reserve(params.size());
    for (const auto& p : params)
        parts.push_back(p.grad().defined() ? p.grad().detach().reshape({-1}).to(torch::kDouble)
                                           : torch::zeros({p.numel()}, torch::kDouble));
    return torch::cat(parts);
}

void dropAllGradients(std::vector<torch::Tensor>& params) {
    for (auto& p : params) {
        auto& g = p.mutable_grad();
        if (g.defined()) g.reset();
    }
}

/// The pilot's measurements at the step's start (see StepProbe); leaves the parameters as
/// they were and no gradients behind.
StepProbe probeStep(Net& net, std::vector<torch::Tensor>& params, const torch::Tensor& x, const torch::Tensor& y,
                    double lr, Params* firstGradient) {
    constexpr std::int64_t kProbeSamples = 32;
    StepProbe p;
    p.batch = static_cast<int>(x.size(0));
    p.learningRate = lr;
    net->eval();
    dropAllGradients(params);
    auto loss = torch::nn::functional::cross_entropy(net->forward(x, false, c10::nullopt), y);
    loss.backward();
    p.loss = loss.item<double>();
    const torch::Tensor g = flatGradient(params);
    p.gradNormSq = g.dot(g).item<double>();
    if (firstGradient && firstGradient->empty()) {
        const torch::Tensor f = g.to(torch::kFloat).contiguous();
        firstGradient->assign(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
    }
    {
        torch::NoGradGuard guard;
        std::vector<torch::Tensor> saved;
        for (auto& q : params) {
            saved.push_back(q.detach().clone());
            if (q.grad().defined()) q.data().add_(q.grad(), -lr);
        }
        p.lossAfterGradientStep =
            torch::nn::functional::cross_entropy(net->forward(x, false, c10::nullopt), y).item<double>();
        for (std::size_t i = 0; i < params.size(); ++i) {
            params[i].data().copy_(saved[i]);
            if (params[i].grad().defined()) params[i].data().add_(params[i].grad(), lr);
        }
        p.lossAfterAscentStep =
            torch::nn::functional::cross_entropy(net->forward(x, false, c10::nullopt), y).item<double>();
        for (std::size_t i = 0; i < params.size(); ++i) params[i].data().copy_(saved[i]);
    }
    const std::int64_t n = std::min<std::int64_t>(kProbeSamples, x.size(0));
    p.probeSamples = static_cast<int>(n);
    if (n > 1) {
        torch::Tensor sum = torch::zeros_like(g);
        double sumSq = 0.0;
        for (std::int64_t j = 0; j < n; ++j) {
            dropAllGradients(params);
            torch::nn::functional::cross_entropy(net->forward(x.narrow(0, j, 1), false, c10::nullopt), y.narrow(0, j, 1))
                .backward();
            const torch::Tensor gj = flatGradient(params);
            sum.add_(gj);
            sumSq += gj.dot(gj).item<double>();
        }
        const double meanSq = sum.dot(sum).item<double>() / static_cast<double>(n * n);
        p.sampleVariance = std::max(0.0, (sumSq - static_cast<double>(n) * meanSq) / static_cast<double>(n - 1));
    }
    dropAllGradients(params);
    net->train();
    return p;
}

} // namespace

Learner::Learner(const ModelSpec& spec, const Dataset& train, const Dataset& test, TrainingBackend backend)
    : impl_(std::make_unique<Impl>()) {
    impl_->spec = spec;
    impl_->train = &train;
    impl_->test = &test;
    impl_->id = nextLearnerId++;
    if (train.size() == 0) throw ModelError("the training set is empty");
    if (train.features.size() != train.size() * static_cast<std::size_t>(train.featureCount()))
        throw ModelError("training features do not match the sample count");
    impl_->trainX = detail::featuresTensor(train);
    impl_->trainY = detail::labelsTensor(train);
    if (test.size() > 0) {
        impl_->testX = detail::featuresTensor(test);
        impl_->testY = detail::labelsTensor(test);
    }
    Net net = impl_->makeNet();
    std::int64_t lastFanIn = 1;
    for (auto& p : net->parameters()) {
        const std::int64_t n = p.numel();
        if (p.dim() >= 2) lastFanIn = n / p.size(0);
        impl_->shapesFanIn.push_back(lastFanIn); // a bias takes its weight's fan-in
        impl_->sizes.push_back(n);
        impl_->parameterCount += static_cast<std::size_t>(n);
    }
    const bool fastPath = backend == TrainingBackend::Fast ||
                          (backend == TrainingBackend::Auto && FastNet::unsupported(spec).empty());
    if (fastPath) {
        impl_->fast = std::make_unique<FastNet>(spec, train, test);
        if (impl_->fast->parameterCount() != impl_->parameterCount)
            throw ModelError("the fast path's model has " + std::to_string(impl_->fast->parameterCount()) +
                             " parameters, LibTorch's " + std::to_string(impl_->parameterCount));
    }
}

Learner::~Learner() = default;

std::size_t Learner::parameterCount() const { return impl_->parameterCount; }

Params Learner::initialParameters(std::uint64_t seed) const {
    // A model of the user's own starts from the weights saved in its file.
    if (impl_->spec.kind == ModelSpec::Kind::TorchScript) return detail::flattenParameters(*impl_->makeNet());
    Params flat;
    flat.reserve(impl_->parameterCount);
    Rng rng(deriveSeed(seed, hashName("model-init")));
    for (std::size_t i = 0; i < impl_->sizes.size(); ++i) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(impl_->shapesFanIn[i]));
        for (std::int64_t k = 0; k < impl_->sizes[i]; ++k)
            flat.push_back(static_cast<float>(rng.uniform(-bound, bound)));
    }
    return flat;
}

/// What the fast path computes: plain local SGD (momentum, weight decay, dropout). A job with
/// another optimiser, a client's kept optimiser state or an algorithm's gradient term
/// (FedProx, SCAFFOLD) takes the LibTorch path, which has them (docs/emulator.md).
static bool fastPathCovers(const LocalJob& j) {
    return !j.probe && j.optimizer == LocalOptimizer::Sgd && j.proxMu == 0.0 && !j.correction && !j.optimizerState &&
           !j.returnState;
}

LocalResult Learner::run(const LocalJob& job, const std::function<bool()>& shouldStop) const {
    if (impl_->fast && fastPathCovers(job)) return impl_->fast->run(job, shouldStop);
    return runSteps(job, shouldStop, false);
}

LocalResult Learner::runWithLibTorchOptimiser(const LocalJob& job) const { return runSteps(job, {}, true); }

LocalResult Learner::runSteps(const LocalJob& job, const std::function<bool()>& shouldStop,
                              bool libTorchOptimiser) const {
    LocalResult result;
    Net& net = impl_->localNet();
    detail::loadParameters(*net, *job.start);
    net->train();
    c10::optional<at::Generator> gen = at::make_generator<at::CPUGeneratorImpl>(job.seed);

    std::vector<torch::Tensor> gradSum;
    auto params = net->parameters();
    if (job.gradientOnly)
        for (auto& p : params) gradSum.push_back(torch::zeros_like(p));
    LocalStepRule opt(params, job);
    const GradientTerms terms(params, job);
    std::unique_ptr<torch::optim::Optimizer> reference;
    if (libTorchOptimiser && !job.gradientOnly) {
        if (job.optimizerState) throw ModelError("internal: LibTorch's optimiser cannot start from a kept state");
        switch (job.optimizer) {
        case LocalOptimizer::Sgd:
        case LocalOptimizer::Nesterov:
            reference = std::make_unique<torch::optim::SGD>(
                params, torch::optim::SGDOptions(job.learningRate)
                            .momentum(job.momentum)
                            .weight_decay(job.weightDecay)
                            .nesterov(job.optimizer == LocalOptimizer::Nesterov));
            break;
        case LocalOptimizer::Adam:
            reference = std::make_unique<torch::optim::Adam>(
                params, torch::optim::AdamOptions(job.learningRate)
                            .betas({job.beta1, job.beta2})
                            .eps(job.epsilon)
                            .weight_decay(job.weightDecay));
            break;
        case LocalOptimizer::AdamW:
            reference = std::make_unique<torch::optim::AdamW>(
                params, torch::optim::AdamWOptions(job.learningRate)
                            .betas({job.beta1, job.beta2})
                            .eps(job.epsilon)
                            .weight_decay(job.weightDecay));
            break;
        }
    }

    double lossSum = 0.0;
    std::size_t offset = 0;
    for (int bs : job.batchSizes) {
        if (shouldStop && shouldStop()) {
            result.cancelled = true;
            return result;
        }
        auto idx = torch::from_blob(const_cast<std::int64_t*>(job.samples.data() + offset), {bs},
                                    torch::kLong);
        offset += static_cast<std::size_t>(bs);
        auto x = impl_->trainX.index_select(0, idx);
        auto y = impl_->trainY.index_select(0, idx);
        if (job.probe) result.probes.push_back(probeStep(net, params, x, y, job.learningRate, &result.firstGradient));
        if (libTorchOptimiser)
            net->zero_grad();
        else
            opt.dropGradients();
        auto loss = torch::nn::functional::cross_entropy(net->forward(x, true, gen), y);
        loss.backward();
        const double l = loss.item<double>();
        if (!std::isfinite(l))
            throw ModelError("training diverged: the loss became " + std::to_string(l) +
                             " (lower training.learning_rate)");
        lossSum += l;
        if (job.gradientOnly) {
            torch::NoGradGuard guard;
            for (std::size_t i = 0; i < params.size(); ++i)
                if (params[i].grad().defined()) gradSum[i].add_(params[i].grad(), static_cast<double>(bs));
        } else {
            if (terms.any()) terms.apply(params);
            if (reference)
                reference->step();
            else
                opt.step();
        }
        result.samples += bs;
        ++result.steps;
    }
    result.meanLoss = result.steps ? lossSum / result.steps : 0.0;

    if (job.gradientOnly) {
        result.update.reserve(impl_->parameterCount);
        const double scale = result.samples ? 1.0 / static_cast<double>(result.samples) : 0.0;
        for (auto& g : gradSum) {
            g.mul_(scale);
            result.update.insert(result.update.end(), g.data_ptr<float>(),
                                 g.data_ptr<float>() + g.numel());
        }
    } else {
        result.update = detail::flattenParameters(*net);
        const Params& start = *job.start;
        for (std::size_t i = 0; i < result.update.size(); ++i) result.update[i] -= start[i];
        if (job.returnState && !reference) result.optimizerState = opt.save();
    }
    return result;
}

EvalResult Learner::evaluate(const Params& params) const {
    EvalResult r;
    if (!impl_->testX.defined()) return r;
    if (impl_->fast) return impl_->fast->evaluate(params);
    torch::NoGradGuard guard;
    Net& net = impl_->localNet();
    detail::loadParameters(*net, params);
    net->eval();
    const std::int64_t n = impl_->testX.size(0);
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (std::int64_t from = 0; from < n; from += 2000) {
        const std::int64_t len = std::min<std::int64_t>(2000, n - from);
        auto x = impl_->testX.narrow(0, from, len);
        auto y = impl_->testY.narrow(0, from, len);
        auto out = net->forward(x, false, c10::nullopt);
        lossSum += torch::nn::functional::cross_entropy(
                       out, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                       .item<double>();
        correct += out.argmax(1).eq(y).sum().item<std::int64_t>();
    }
    r.samples = n;
    r.loss = lossSum / static_cast<double>(n);
    r.accuracy = static_cast<double>(correct) / static_cast<double>(n);
    return r;
}

std::string Learner::describe() const {
    std::string s = toString(impl_->spec.kind);
    s += " (" + std::to_string(impl_->parameterCount) + " parameters";
    if (impl_->fast) s += ", " + impl_->fast->describe();
    s += ")";
    return s;
}

std::string Learner::backend() const { return impl_->fast ? impl_->fast->describe() : "libtorch"; }

bool Learner::fast() const { return impl_->fast != nullptr; }

} // namespace fog
