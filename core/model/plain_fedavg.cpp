// The reference workload of `fogstudio-cli bench` as a plain LibTorch loop, without the
// emulator: what a person would write by hand. The benchmark compares the two.

#include "core/model/learner.h"
#include "core/model/net.h"
#include "core/util/random.h"

#include <thread>

namespace fog {

EvalResult runPlainFedAvg(const PlainFedAvgConfig& cfg, const Dataset& train, const Dataset& test,
                          const std::vector<std::vector<std::int64_t>>& parts) {
    using detail::Net;
    const auto trainX = detail::featuresTensor(train);
    const auto trainY = detail::labelsTensor(train);
    Learner reference(cfg.model, train, test);
    Params global = reference.initialParameters(cfg.seed);
    Rng rng(deriveSeed(cfg.seed, hashName("plain-fedavg")));

    for (int round = 0; round < cfg.rounds; ++round) {
        std::vector<int> clients(parts.size());
        for (std::size_t i = 0; i < clients.size(); ++i) clients[i] = static_cast<int>(i);
        rng.shuffle(clients);
        clients.resize(std::min<std::size_t>(clients.size(), cfg.clientsPerRound));

        std::vector<Params> local(clients.size());
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            Net net(cfg.model, train.channels, train.height, train.width, train.classes);
            for (std::size_t c; (c = next++) < clients.size();) {
                const auto& idx = parts[clients[c]];
                detail::loadParameters(*net, global);
                net->train();
                torch::optim::SGD opt(net->parameters(),
                                      torch::optim::SGDOptions(cfg.learningRate).momentum(cfg.momentum));
                c10::optional<at::Generator> gen =
                    at::make_generator<at::CPUGeneratorImpl>(deriveSeed(cfg.seed, round, c));
                auto all = torch::from_blob(const_cast<std::int64_t*>(idx.data()),
                                            {static_cast<std::int64_t>(idx.size())}, torch::kLong);
                for (int e = 0; e < cfg.epochs; ++e) {
                    auto order = all.index_select(0, torch::randperm(all.size(0), *gen));
                    for (std::int64_t from = 0; from < order.size(0); from += cfg.batchSize) {
                        auto b = order.narrow(0, from, std::min<std::int64_t>(cfg.batchSize, order.size(0) - from));
                        net->zero_grad();
                        auto loss = torch::nn::functional::cross_entropy(
                            net->forward(trainX.index_select(0, b), true, gen), trainY.index_select(0, b));
                        loss.backward();
                        loss.item<double>(); // the emulator reads every loss too
                        opt.step();
                    }
                }
                local[c] = detail::flattenParameters(*net);
            }
        };
        std::vector<std::thread> threads;
        for (int t = 0; t < cfg.threads; ++t) threads.emplace_back(worker);
        for (auto& t : threads) t.join();

        double total = 0.0;
        for (int c : clients) total += static_cast<double>(parts[c].size());
        std::fill(global.begin(), global.end(), 0.0f);
        for (std::size_t c = 0; c < clients.size(); ++c) {
            const float w = static_cast<float>(parts[clients[c]].size() / total);
            for (std::size_t i = 0; i < global.size(); ++i) global[i] += w * local[c][i];
        }
    }
    return reference.evaluate(global);
}

} // namespace fog
