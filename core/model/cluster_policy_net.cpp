// LibTorch half of the learned cluster scheduler (see cluster_policy_net.h).

#include "core/model/cluster_policy_net.h"
#include "core/data/regular_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fog::cluster {

namespace {

constexpr std::int64_t kFormatVersion = 1;

struct Mlp2Impl : torch::nn::Module {
    Mlp2Impl(int in, int hidden, int out) {
        a = register_module("a", torch::nn::Linear(in, hidden));
        b = register_module("b", torch::nn::Linear(hidden, out));
    }
    torch::Tensor forward(const torch::Tensor& x) { return b->forward(torch::relu(a->forward(x))); }
    torch::nn::Linear a{nullptr}, b{nullptr};
};
TORCH_MODULE(Mlp2);

struct NetImpl : torch::nn::Module {
    NetImpl(int agents, int e) : agents(agents), embed(e) {
        const int T = ClusterPolicy::kTaskFeatures, S = ClusterPolicy::kServerFeatures, G = ClusterPolicy::kGlobalFeatures;
        taskEnc = register_module("task_enc", Mlp2(T, e, e));
        serverEnc = register_module("server_enc", Mlp2(S, e, e));
        query = register_module("query", torch::nn::Linear(e, e));
        key = register_module("key", torch::nn::Linear(e, e));
        value = register_module("value", torch::nn::Linear(e, e));
        norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({e})));
        agentEmb = register_module("agent_emb", torch::nn::Embedding(agents, e));
        context = register_module("context", Mlp2(3 * e + G, e, e));
        ptrTask = register_module("ptr_task", torch::nn::Linear(e, e));
        ptrQuery = register_module("ptr_query", torch::nn::Linear(e, e));
        ptrV = register_module("ptr_v", torch::nn::Linear(e, 1));
        stopHead = register_module("stop", torch::nn::Linear(e, 1));
        serverHead = register_module("server_head", Mlp2(2 * e, e, 1));
        levelHead = register_module("level_head", Mlp2(3 * e, e, ClusterPolicy::kLevels));
        critic = register_module("critic", Mlp2(2 * e + G, e, 1));
    }
    int agents, embed;
    Mlp2 taskEnc{nullptr}, serverEnc{nullptr}, context{nullptr}, serverHead{nullptr}, levelHead{nullptr}, critic{nullptr};
    torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};
    torch::nn::LayerNorm norm{nullptr};
    torch::nn::Embedding agentEmb{nullptr};
    torch::nn::Linear ptrTask{nullptr}, ptrQuery{nullptr}, ptrV{nullptr}, stopHead{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor maskedLogits(torch::Tensor logits, const torch::Tensor& mask) {
    return logits.masked_fill(mask.logical_not(), -1e9);
}

/// Index drawn from (or the argmax of) a probability vector, among the allowed entries only
/// (so that a probability rounded to 0, or ties at 0, can never pick a masked action).
int choose(const torch::Tensor& probs, const std::vector<char>& allowed, bool sample, Rng& rng) {
    const auto p = probs.contiguous();
    const float* x = p.data_ptr<float>();
    const int n = static_cast<int>(p.numel());
    int best = -1;
    double total = 0;
    for (int i = 0; i < n; ++i) {
        if (!allowed[i]) continue;
        if (best < 0 || x[i] > x[best]) best = i;
        total += x[i];
    }
    if (!sample || best < 0 || !(total > 0)) return std::max(best, 0);
    const double u = rng.uniform() * total;
    double acc = 0;
    for (int i = 0; i < n; ++i) {
        if (!allowed[i]) continue;
        acc += x[i];
        if (u < acc) return i;
    }
    return best;
}

} // namespace

struct ClusterPolicy::Impl {
    Net net{nullptr};
    bool recording = false;
    std::vector<torch::Tensor> logps, values, entropies;
    std::unique_ptr<torch::optim::Adam> optimizer;
    double optimizerLr = -1;
};

ClusterPolicy::ClusterPolicy(int agents, std::uint64_t seed, int embed) : impl_(std::make_unique<Impl>()) {
    torch::manual_seed(seed);
    impl_->net = Net(std::max(1, agents), embed);
}

ClusterPolicy::~ClusterPolicy() = default;

int ClusterPolicy::agents() const { return impl_->net->agents; }
int ClusterPolicy::embed() const { return impl_->net->embed; }
void ClusterPolicy::setRecording(bool on) { impl_->recording = on; }
void ClusterPolicy::clearRecording() {
    impl_->logps.clear();
    impl_->values.clear();
    impl_->entropies.clear();
}

PolicyAction ClusterPolicy::act(const PolicyObservation& o, bool sample, Rng& rng) {
    Net& net = impl_->net;
    const bool grad = impl_->recording;
    torch::AutoGradMode mode(grad);
    const int n = o.tasks, m = o.servers, E = net->embed;
    // Copies: autograd keeps the inputs for the backward pass, after `o` is gone.
    auto floats = [](const std::vector<float>& v, std::vector<std::int64_t> shape) {
        return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone();
    };
    auto bools = [](const std::vector<std::uint8_t>& v, std::vector<std::int64_t> shape) {
        return torch::from_blob(const_cast<std::uint8_t*>(v.data()), shape, torch::kUInt8).to(torch::kBool);
    };
    const torch::Tensor tf = floats(o.taskFeatures, {n, kTaskFeatures});
    const torch::Tensor sf = floats(o.serverFeatures, {m, kServerFeatures});
    const torch::Tensor gf = floats(o.globalFeatures, {kGlobalFeatures});
    const torch::Tensor taskMask = bools(o.taskMask, {n});
    const torch::Tensor placeMask = bools(o.placeMask, {n, m});

    // Encoder: tasks attend over tasks and servers.
    const torch::Tensor ht0 = net->taskEnc->forward(tf);   // n x E
    const torch::Tensor hs = net->serverEnc->forward(sf);  // m x E
    // Scaled dot-product attention, one head (a few large ops beat many small ones here).
    const torch::Tensor nodes = torch::cat({ht0, hs}, 0); // (n+m) x E
    const torch::Tensor weights =
        torch::softmax(torch::matmul(net->query->forward(ht0), net->key->forward(nodes).t()) / std::sqrt(double(E)), 1);
    const torch::Tensor ht = net->norm->forward(ht0 + torch::matmul(weights, net->value->forward(nodes))); // n x E

    // The agent's context: its own servers, who it is, global counters.
    std::vector<float> ownWeights(m, 0.0f);
    int owned = 0;
    for (int j = 0; j < m; ++j) owned += o.serverFeatures[j * kServerFeatures + 4] > 0.5f;
    for (int j = 0; j < m; ++j)
        if (o.serverFeatures[j * kServerFeatures + 4] > 0.5f) ownWeights[j] = 1.0f / owned;
    const torch::Tensor ownPool = torch::matmul(floats(ownWeights, {1, m}), hs).squeeze(0); // mean of own servers
    const torch::Tensor agent = net->agentEmb->weight[o.agent];
    const torch::Tensor q = torch::relu(net->context->forward(torch::cat({ht.mean(0), ownPool, agent, gf}, 0))); // E

    // Pointer over tasks, plus stop.
    const torch::Tensor u = net->ptrV->forward(torch::tanh(net->ptrTask->forward(ht) + net->ptrQuery->forward(q))).squeeze(1); // n
    const torch::Tensor stopLogit = net->stopHead->forward(q); // 1
    const torch::Tensor pointerMask = torch::cat({taskMask, torch::full({1}, o.stopAllowed, torch::kBool)}, 0);
    const torch::Tensor pLogits = maskedLogits(torch::cat({u, stopLogit}, 0), pointerMask);
    const torch::Tensor pLogp = torch::log_softmax(pLogits, 0);
    const torch::Tensor pProb = pLogp.exp();
    auto entropyOf = [](const torch::Tensor& logp) { return -(logp.exp() * logp.clamp_min(-50.0)).sum(); };

    if (!torch::isfinite(pLogits).all().item<bool>())
        throw std::runtime_error("cluster policy: the network's output is not finite (diverged weights?)");
    PolicyAction a;
    std::vector<char> pointerAllowed(o.taskMask.begin(), o.taskMask.end());
    pointerAllowed.push_back(o.stopAllowed ? 1 : 0);
    const int pick = choose(pProb.detach(), pointerAllowed, sample, rng);
    torch::Tensor logp = pLogp[pick];
    torch::Tensor entropy = entropyOf(pLogp);
    if (pick < n) {
        a.stop = false;
        a.task = pick;
        const torch::Tensor hTask = ht[pick];
        const torch::Tensor sLogits =
            maskedLogits(net->serverHead->forward(torch::cat({hTask.unsqueeze(0).expand({m, E}), hs}, 1)).squeeze(1), placeMask[pick]);
        const torch::Tensor sLogp = torch::log_softmax(sLogits, 0);
        const std::vector<char> serverAllowed(o.placeMask.begin() + std::size_t(pick) * m,
                                              o.placeMask.begin() + std::size_t(pick + 1) * m);
        a.server = choose(sLogp.exp().detach(), serverAllowed, sample, rng);
        const torch::Tensor lLogp = torch::log_softmax(net->levelHead->forward(torch::cat({hTask, hs[a.server], q}, 0)), 0);
        a.level = choose(lLogp.exp().detach(), std::vector<char>(kLevels, 1), sample, rng);
        logp = logp + sLogp[a.server] + lLogp[a.level];
        entropy = entropy + entropyOf(sLogp) + entropyOf(lLogp);
    }
    if (grad) {
        const torch::Tensor value = net->critic->forward(torch::cat({ht.mean(0), hs.mean(0), gf}, 0)).squeeze(0);
        impl_->logps.push_back(logp);
        impl_->entropies.push_back(entropy);
        impl_->values.push_back(value);
    }
    return a;
}

PolicyUpdateStats ClusterPolicy::update(const std::vector<double>& returns, double learningRate, double entropyWeight) {
    return update(returns, {}, learningRate, entropyWeight);
}

PolicyUpdateStats ClusterPolicy::update(const std::vector<double>& returns, const std::vector<double>& baselines,
                                        double learningRate, double entropyWeight) {
    PolicyUpdateStats st;
    const std::size_t n = impl_->logps.size();
    if (n == 0 || returns.size() != n || (!baselines.empty() && baselines.size() != n)) {
        clearRecording();
        if (returns.size() != n || (!baselines.empty() && baselines.size() != n))
            throw std::logic_error("ClusterPolicy::update: returns, baselines and recorded actions differ in count");
        return st;
    }
    if (!impl_->optimizer || impl_->optimizerLr != learningRate) {
        impl_->optimizer = std::make_unique<torch::optim::Adam>(impl_->net->parameters(), torch::optim::AdamOptions(learningRate));
        impl_->optimizerLr = learningRate;
    }
    std::vector<float> r(returns.begin(), returns.end());
    const torch::Tensor R = torch::from_blob(r.data(), {static_cast<std::int64_t>(n)}, torch::kFloat32).clone();
    const torch::Tensor V = torch::stack(impl_->values);
    const torch::Tensor logp = torch::stack(impl_->logps);
    const torch::Tensor ent = torch::stack(impl_->entropies);
    torch::Tensor adv = (R - V).detach();
    if (!baselines.empty()) {
        std::vector<float> b(baselines.begin(), baselines.end());
        adv = R - torch::from_blob(b.data(), {static_cast<std::int64_t>(n)}, torch::kFloat32).clone();
    }
    if (n > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-6);
    const torch::Tensor policyLoss = -(logp * adv).mean();
    const torch::Tensor valueLoss = (V - R).pow(2).mean();
    const torch::Tensor loss = policyLoss + 0.5 * valueLoss - entropyWeight * ent.mean();
    if (!std::isfinite(loss.item<double>())) { // a NaN step would ruin every weight: skip it
        clearRecording();
        st.skipped = true;
        return st;
    }
    impl_->optimizer->zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(impl_->net->parameters(), 1.0);
    impl_->optimizer->step();
    st.policyLoss = policyLoss.item<double>();
    st.valueLoss = valueLoss.item<double>();
    st.entropy = ent.mean().item<double>();
    st.actions = static_cast<int>(n);
    clearRecording();
    return st;
}

std::string ClusterPolicy::serialize() const {
    torch::serialize::OutputArchive archive;
    impl_->net->save(archive);
    archive.write("fogstudio_cluster_policy",
                  torch::tensor({kFormatVersion, static_cast<std::int64_t>(agents()), static_cast<std::int64_t>(embed())}));
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
}

std::unique_ptr<ClusterPolicy> ClusterPolicy::deserialize(const std::string& bytes, const std::string& label) {
    try {
        std::istringstream in(bytes);
        torch::serialize::InputArchive archive;
        archive.load_from(in);
        torch::Tensor meta;
        if (!archive.try_read("fogstudio_cluster_policy", meta) || meta.numel() != 3)
            throw std::runtime_error("not a FogStudio cluster policy");
        const auto version = meta[0].item<std::int64_t>();
        if (version > kFormatVersion)
            throw std::runtime_error("written by a newer FogStudio (format " + std::to_string(version) + ")");
        // The sizes come from the file: checked before the network is built from them (a
        // corrupted count would allocate gigabytes).
        const auto agents = meta[1].item<std::int64_t>(), embed = meta[2].item<std::int64_t>();
        if (agents < 1 || agents > kMaxPolicyAgents || embed < 1 || embed > kMaxPolicyEmbed)
            throw std::runtime_error("the file says " + std::to_string(agents) + " agents of width " +
                                     std::to_string(embed) + ", beyond the limits (1.." + std::to_string(kMaxPolicyAgents) +
                                     " agents, width 1.." + std::to_string(kMaxPolicyEmbed) + "): a damaged file");
        auto p = std::make_unique<ClusterPolicy>(static_cast<int>(agents), 1, static_cast<int>(embed));
        p->impl_->net->load(archive);
        return p;
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(label + ": cannot load the cluster policy: " + e.what());
    } catch (const c10::Error& e) {
        throw std::runtime_error(label + ": cannot load the cluster policy: " + e.what_without_backtrace());
    }
}

void ClusterPolicy::save(const std::string& path) const {
    // Written beside the target and renamed over it: a kill during the save leaves the old
    // policy whole (a rename within a folder is atomic), never half a file.
    const std::string bytes = serialize();
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw std::runtime_error(path + ": cannot write the cluster policy (disk full, or no write access)");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot write the cluster policy: " + why);
    }
}

std::string ClusterPolicy::checkWritable(const std::string& path) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return "is a folder, not a file";
    std::ofstream probe(tmp, std::ios::binary | std::ios::trunc);
    if (!probe) return std::string("cannot be written here: ") + std::strerror(errno);
    probe.close();
    std::remove(tmp.c_str());
    return {};
}

std::unique_ptr<ClusterPolicy> ClusterPolicy::load(const std::string& path) {
    // Only a regular file of a sane size: /dev/zero, a FIFO or a sparse 2 GiB file named as
    // a policy would be read without end, block, or take gigabytes.
    RegularFile f(path);
    if (!f.ok()) throw std::runtime_error(path + ": cannot open the cluster policy file: " + f.error());
    if (f.size() > kMaxPolicyBytes)
        throw std::runtime_error(path + ": cannot load the cluster policy: the file has " + std::to_string(f.size()) +
                                 " bytes; a policy has at most " + std::to_string(kMaxPolicyBytes));
    std::string bytes(static_cast<std::size_t>(f.size()), '\0');
    std::size_t got = 0;
    while (got < bytes.size()) {
        const long long n = f.read(bytes.data() + got, bytes.size() - got);
        if (n < 0) throw std::runtime_error(path + ": cannot read the cluster policy file: " + std::strerror(errno));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
    return deserialize(bytes, path);
}

} // namespace fog::cluster
