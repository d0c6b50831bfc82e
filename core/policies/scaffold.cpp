// SCAFFOLD (Karimireddy et al., ICML 2020, Algorithm 1 with option II): control variates
// correct the client drift of local SGD on non-IID data. The server keeps c, every client its
// c_i (kept here across rounds for the clients that come back: the emulator holds what each
// client would hold); a dispatch sends (x, c) down and the client sends (Delta y, Delta c_i)
// up, so both transfers carry twice the model's bytes, priced by the clock like any traffic.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

#include <map>

namespace fog {

namespace {

class Scaffold : public RoundPolicy {
public:
    Scaffold(const PolicyParams& p, const PolicyContext& e) {
        aggregator_ = singleRootAggregator(e, p.policy());
        const auto& t = e.scenario().training;
        if (t.codecUp != "none" || t.codecDown != "none")
            throw EngineError("sync policy scaffold does not encode its control variates: use it with "
                              "training.codec_up and codec_down none");
    }

protected:
    bool gradientMode() const override { return false; }
    void prepareDispatch(PolicyContext& e, DispatchRequest& r) override {
        r.options.downloadVectors = 2; // x and c
        r.options.uploadVectors = 2;   // Delta y and Delta c_i
        if (!r.model || r.model->empty()) return;     // timing only
        if (v_.c.empty()) v_.c.assign(r.model->size(), 0.0f);
        auto correction = std::make_shared<Params>(v_.c);
        const auto it = v_.ci.find(r.trainer);
        if (it != v_.ci.end() && !it->second.empty())
            for (std::size_t i = 0; i < correction->size(); ++i) (*correction)[i] -= it->second[i];
        r.correction = std::move(correction);
        lr_[r.trainer] = e.learningRate();
    }
    void onRoundStarted(PolicyContext& e) override {
        const double deadline = e.syncParams().get("deadline_s"); // live
        if (deadline <= 0) return;
        const int round = round_;
        e.at(e.now() + deadline, [this, &e, round] {
            if (round_ == round && !outstanding_.empty() && !waiting_) completeRound(e);
        });
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        model_.addDelta(scaffoldRound(v_, results, lr_, e.trainersOf(aggregator_).size()));
    }

private:
    ScaffoldVariates v_;       ///< c, and c_i of every client that delivered once
    std::map<int, double> lr_; ///< local learning rate of each client's current dispatch
};

} // namespace

FOG_SYNC_POLICY(scaffoldPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info = {"scaffold",
                  "SCAFFOLD: every local gradient is corrected by c - c_i (server and client control "
                  "variates, zero at first). After K local steps of size eta a client sets "
                  "c_i+ = c_i - c + (x - y_i) / (K eta) (option II) and keeps it for its next round; the "
                  "server sets x += (1/|S|) sum (y_i - x) and c += (1/N) sum (c_i+ - c_i), N the trainers "
                  "of the server. The model goes down with c and the change goes up with Delta c_i: both "
                  "transfers carry twice the model's bytes.",
                  "Karimireddy et al., SCAFFOLD: Stochastic controlled averaging for federated learning, "
                  "ICML 2020 (Algorithm 1, option II)",
                  {live(realParam("deadline_s", 0.0, 0.0, 1e12,
                                  "seconds after the round starts at which late trainers are dropped; 0 = none"))}};
        d.order = 62;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<Scaffold>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
