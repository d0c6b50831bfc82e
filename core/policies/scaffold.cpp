// SCAFFOLD (Karimireddy et al., ICML 2020, Algorithm 1 with option II): control variates
// correct the client drift of local SGD on non-IID data. The server keeps c, every client its
// c_i (kept here across rounds for the clients that come back: the emulator holds what each
// client would hold); a dispatch sends (x, c) down and the client sends (Delta y, Delta c_i)
// up, so both transfers carry twice the model's bytes, priced by the clock like any traffic.
// With codecs (training.codec_up / codec_down) c and Delta c_i go through them as the model
// and the change do: twice the encoded bytes, twice the encode and decode work.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"
#include "core/policies/update_codec.h"
#include "core/util/random.h"

#include <map>

namespace fog {

namespace {

struct ScaffoldSettings {
    double deadlineSeconds = 0.0; ///< 0: none
};

const ParamTable<ScaffoldSettings>& scaffoldParams() {
    static const auto t = ParamTable<ScaffoldSettings>()
                              .real("deadline_s", &ScaffoldSettings::deadlineSeconds, 0.0, 0.0, 1e12,
                                    "seconds after the round starts at which late trainers are dropped; 0 = none")
                              .live();
    return t;
}

class Scaffold : public RoundPolicy {
public:
    Scaffold(const PolicyParams& p, const SystemView& e) : settings_(scaffoldParams()) {
        aggregator_ = singleRootAggregator(e, p.policy());
        const auto& t = e.scenario().training;
        try {
            up_ = codecConfig(t.codecUp, t.codecUpBits, t.codecUpFraction);
            down_ = codecConfig(t.codecDown, t.codecDownBits, 1.0);
        } catch (const std::invalid_argument& x) {
            throw EngineError(x.what());
        }
    }

protected:
    bool gradientMode() const override { return false; }
    void prepareDispatch(PolicyContext& e, DispatchRequest& r) override {
        r.options.downloadVectors = 2; // x and c
        r.options.uploadVectors = 2;   // Delta y and Delta c_i
        if (!r.model || r.model->empty()) return;     // timing only
        if (v_.c.empty()) v_.c.assign(r.model->size(), 0.0f);
        auto correction = std::make_shared<Params>(v_.c);
        if (down_.kind != CodecConfig::Kind::None) {
            // c goes down through the model's codec (its own stream per trainer and dispatch).
            Rng rng(deriveSeed(deriveSeed(e.scenario().seed, hashName("scaffold-c-down"),
                                          hashName(e.topology().id(r.trainer))),
                               dispatches_[r.trainer]++));
            encodeDecode(down_, *correction, rng, nullptr);
        }
        const auto it = v_.ci.find(r.trainer);
        if (it != v_.ci.end() && !it->second.empty())
            for (std::size_t i = 0; i < correction->size(); ++i) (*correction)[i] -= it->second[i];
        r.correction = std::move(correction);
        lr_[r.trainer] = e.learningRate();
    }
    double roundDeadline(PolicyContext& e) override { return settings_.of(e.syncParams()).deadlineSeconds; }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        std::function<void(int, Params&)> sendUp;
        if (up_.kind != CodecConfig::Kind::None)
            sendUp = [this, &e](int trainer, Params& deltaCi) {
                // Delta c_i goes up through the update's codec (top-k: its own residual).
                Rng rng(deriveSeed(deriveSeed(e.scenario().seed, hashName("scaffold-c-up"),
                                              hashName(e.topology().id(trainer))),
                                   uploads_[trainer]++));
                encodeDecode(up_, deltaCi, rng, &residuals_[trainer]);
            };
        model_.addDelta(scaffoldRound(v_, results, lr_, e.trainersOf(aggregator_).size(), sendUp));
    }

private:
    LiveParams<ScaffoldSettings> settings_;
    ScaffoldVariates v_;       ///< c, and c_i of every client that delivered once
    std::map<int, double> lr_; ///< local learning rate of each client's current dispatch
    CodecConfig up_, down_;    ///< the wire's codecs, applied to Delta c_i and c too
    std::map<int, std::uint64_t> dispatches_, uploads_; ///< per trainer: the codec streams' index
    std::map<int, Params> residuals_;                   ///< top-k's residual of each Delta c_i stream
};

} // namespace

FOG_SYNC_POLICY(scaffoldPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "scaffold";
        d.info.summary = "SCAFFOLD: every local gradient is corrected by c - c_i (server and client "
                         "control variates, zero at first). After K local steps of size eta a client sets "
                         "c_i+ = c_i - c + (x - y_i) / (K eta) (option II) and keeps it for its next "
                         "round; the server sets x += (1/|S|) sum (y_i - x) and c += (1/N) sum (c_i+ - "
                         "c_i), N the trainers of the server. The model goes down with c and the change "
                         "goes up with Delta c_i: both transfers carry twice the model's bytes (with "
                         "codecs: c and Delta c_i are encoded too, twice the encoded bytes and the codec "
                         "work).";
        d.info.source = "Karimireddy et al., SCAFFOLD: Stochastic controlled averaging for federated "
                        "learning, ICML 2020 (Algorithm 1, option II)";
        d.info.params = scaffoldParams().infos();
        d.order = 62;
        d.roundDeadline = paramRef<scaffoldParams, &ScaffoldSettings::deadlineSeconds>();
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<Scaffold>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
