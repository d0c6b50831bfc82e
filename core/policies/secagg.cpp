// Secure aggregation as a cost model: FedAvg whose server learns only the sum of the
// updates, with the extra messages, bytes and client computation of the protocol priced by
// the clock. SecAgg (Bonawitz et al., CCS 2017): every client of the round's cohort of n
// masks its update with pairwise masks agreed with the n - 1 others; SecAgg+ (Bell et al.,
// CCS 2020): with k neighbours on a sparse graph only. The arithmetic is FedAvg's (the masks
// cancel in the sum); what changes is time, bytes, price and energy.
//
// One round, per client of the cohort (secAggBytes gives the byte counts):
//   AdvertiseKeys  client -> server: 2 public keys (64 B); server -> client: the k
//                  neighbours' keys (64 k B)
//   ShareKeys      client -> server: k encrypted share pairs (92 k B); server -> client:
//                  the k pairs addressed to it (92 k B)
//   masks          the client expands k + 1 masks of P elements (PRG) once it has the
//                  model, before it trains: (k + 1) P / prg_elements_per_s seconds of its
//                  job (held, billed and charged energy as compute)
//   MaskedInput    the training job: the model down, the masked update up: P elements of
//                  the protocol's ring Z_R, R = 2^field_bits, ceil(P field_bits / 8) bytes
//                  (32 bits, the default: FedAvg's 4 P)
//   Unmasking      server -> survivor: the survivors' ids (4 n B); survivor -> server: k
//                  shares (32 k B); the server expands the masks of every dropped client
//                  towards its surviving neighbours (dropped x k x P elements, charged as its
//                  compute energy) and aggregates.

#include "core/policies/aggregation.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/secagg.h"
#include "core/policies/round_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace fog {

SecAggBytes secAggBytes(int cohort, int neighbours) {
    SecAggBytes b;
    const double n = cohort, k = neighbours;
    b.advertiseUp = 64;
    b.advertiseDown = 64 * k;
    b.shareUp = 92 * k;
    b.shareDown = 92 * k;
    b.unmaskDown = 4 * n;
    b.unmaskUp = 32 * k;
    return b;
}

int secAggNeighbours(int cohort, int neighbours) {
    const int all = std::max(0, cohort - 1);
    return neighbours > 0 ? std::min(all, neighbours) : all;
}

double secAggMaskedBytes(double params, int fieldBits) {
    if (fieldBits < 1) throw std::invalid_argument("secagg: field_bits must be at least 1");
    return std::ceil(params * fieldBits / 8.0);
}

namespace {

struct SecAggSettings {
    int neighbors = 0;
    double prgElementsPerSecond = 0.0;
    int fieldBits = 32;
};

const ParamTable<SecAggSettings>& secAggParams() {
    static const auto t =
        ParamTable<SecAggSettings>()
            .integer("neighbors", &SecAggSettings::neighbors, 0, 0,
                     "k of SecAgg+; 0 = SecAgg (every other client of the cohort)", 1e6)
            .real("prg_elements_per_s", &SecAggSettings::prgElementsPerSecond, 1e8, 0.0, 1e15,
                  "mask elements a node expands per second (AES-CTR PRG); 0 = free")
            .integer("field_bits", &SecAggSettings::fieldBits, 32, 8,
                     "bits b of the ring Z_(2^b) the masked update is summed in: its P elements take "
                     "ceil(P b / 8) bytes (32: FedAvg's 4 P)",
                     64);
    return t;
}

class SecAgg : public SyncPolicy {
public:
    SecAgg(const PolicyParams& p, const SystemView& e) : settings_(secAggParams().read(p)) {
        aggregator_ = singleRootAggregator(e, p.policy());
        neighbours_ = settings_.neighbors;
        prgRate_ = settings_.prgElementsPerSecond;
        const auto& t = e.scenario().training;
        if (settings_.fieldBits != 32 && t.codecUp != "none")
            throw EngineError("sync.field_bits " + std::to_string(settings_.fieldBits) + " with training.codec_up " +
                              t.codecUp + ": the masked update is P elements of the field, whatever the codec; "
                              "an uplink codec combines only with the default field_bits 32 (the masked update "
                              "then has the codec's size, as before)");
        // P: the model's parameters, or the wire size over 4 bytes in a timing-only run (as the
        // codecs count it); the masked update is ceil(P b / 8) bytes, modelBytes() scaled by it.
        const ParamsPtr model = e.initialModel();
        params_ = model && !model->empty() ? static_cast<double>(model->size()) : std::round(e.modelBytes() / 4.0);
        uploadVectors_ = params_ > 0 ? secAggMaskedBytes(params_, settings_.fieldBits) / (4.0 * params_) : 1.0;
    }

    void start(PolicyContext& e) override {
        model_ = ServerModel(e.initialModel(), serverOptimizerConfig(e.scenario().training));
        beginRound(e);
    }
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override {
        if (!jobs_.erase(job.id)) return;
        results_.push_back({job.trainer, result.samples, result.meanLoss, model_.version() - job.version,
                            std::move(result.update), static_cast<int>(job.batchSizes.size()), job.stepsRequested});
        if (jobs_.empty() && waitingMasks_ == 0) unmask(e);
    }
    void onLost(PolicyContext& e, const Job& job) override {
        if (!jobs_.erase(job.id)) return;
        if (jobs_.empty() && waitingMasks_ == 0) unmask(e);
    }
    void onNodeOnline(PolicyContext& e, int) override {
        if (waiting_) beginRound(e);
    }
    ParamsPtr globalModel() const override { return model_.params(); }

private:
    double elements(const SystemView& e) const { return e.modelBytes() / 4.0; }

    void beginRound(PolicyContext& e) {
        if (e.stopped()) return;
        cohort_ = e.selectTrainers(aggregator_, e.globalRound() + 1);
        if (cohort_.empty()) {
            waiting_ = true;
            return;
        }
        waiting_ = false;
        ++round_;
        results_.clear();
        jobs_.clear();
        const int n = static_cast<int>(cohort_.size());
        k_ = secAggNeighbours(n, neighbours_);
        bytes_ = secAggBytes(n, k_);
        pending_ = cohort_.size();
        const long round = round_;
        // AdvertiseKeys: every client's keys up; once all are in, each gets its neighbours'.
        for (int c : cohort_)
            e.send(c, aggregator_, bytes_.advertiseUp, [this, &e, round] {
                if (round != round_ || --pending_ > 0) return;
                pending_ = cohort_.size();
                for (int d : cohort_)
                    e.send(aggregator_, d, bytes_.advertiseDown, [this, &e, round, d] { shareKeys(e, round, d); });
            });
    }

    /// ShareKeys: client d sends its encrypted shares; once all are in, each gets those for it.
    void shareKeys(PolicyContext& e, long round, int d) {
        if (round != round_) return;
        e.send(d, aggregator_, bytes_.shareUp, [this, &e, round] {
            if (round != round_ || --pending_ > 0) return;
            waitingMasks_ = cohort_.size();
            for (int c : cohort_)
                e.send(aggregator_, c, bytes_.shareDown, [this, &e, round, c] { expandMasks(e, round, c); });
        });
    }

    /// The client expands its k + 1 masks, then trains (MaskedInputCollection): the masks are
    /// the job's work before its first step (timed, billed and charged energy as compute).
    void expandMasks(PolicyContext& e, long round, int c) {
        if (round != round_) return;
        --waitingMasks_;
        if (e.isOnline(c) && !e.isBusy(c) && !e.stopped()) {
            DispatchRequest r;
            r.trainer = c;
            r.aggregator = aggregator_;
            r.model = model_.params();
            r.version = model_.version();
            r.steps = e.localStepsOf(c);
            r.round = e.globalRound() + 1;
            r.options.workBeforeSeconds = prgRate_ > 0 ? (k_ + 1) * elements(e) / prgRate_ : 0.0;
            r.options.uploadVectors = uploadVectors_; // the masked update: P field elements
            jobs_.insert(e.dispatch(r));
        }
        if (waitingMasks_ == 0 && jobs_.empty()) unmask(e);
    }

    /// Unmasking: the survivors get the list and send their shares; the server removes the
    /// dropped clients' masks and aggregates.
    void unmask(PolicyContext& e) {
        const long round = round_;
        std::set<int> survivors;
        for (const auto& r : results_) survivors.insert(r.trainer);
        const double dropped = static_cast<double>(cohort_.size() - survivors.size());
        auto finish = [this, &e, round, dropped] {
            if (round != round_) return;
            const double seconds =
                prgRate_ > 0 ? dropped * k_ * elements(e) / prgRate_ : 0.0; // the dropped clients' masks
            e.chargeWork(aggregator_, seconds);
            e.at(e.now() + seconds, [this, &e, round] {
                if (round != round_) return;
                aggregate(e);
            });
        };
        if (survivors.empty()) {
            finish();
            return;
        }
        pending_ = survivors.size();
        for (int c : survivors)
            e.send(aggregator_, c, bytes_.unmaskDown, [this, &e, round, c, finish] {
                if (round != round_) return;
                e.send(c, aggregator_, bytes_.unmaskUp, [this, round, finish] {
                    if (round != round_ || --pending_ > 0) return;
                    finish();
                });
            });
    }

    void aggregate(PolicyContext& e) {
        AggregationRecord r;
        r.aggregator = e.topology().id(aggregator_);
        r.participants = static_cast<int>(results_.size());
        r.trainLoss = meanLoss(results_);
        if (!results_.empty()) model_.addDelta(sampleWeightedUpdate(results_));
        results_.clear();
        e.reportAggregation(r, model_.params());
        beginRound(e);
    }

    SecAggSettings settings_;
    int aggregator_ = -1;
    int neighbours_ = 0;
    double prgRate_ = 0.0;
    double params_ = 0.0;        ///< P
    double uploadVectors_ = 1.0; ///< the masked update's bytes over 4 P
    ServerModel model_;
    long round_ = 0;
    std::vector<int> cohort_;
    int k_ = 0;
    SecAggBytes bytes_;
    std::size_t pending_ = 0;      ///< messages of the current phase still on their way
    std::size_t waitingMasks_ = 0; ///< clients whose key shares are still on their way
    std::set<std::uint64_t> jobs_;
    std::vector<Contribution> results_;
    bool waiting_ = false;
};

} // namespace

FOG_SYNC_POLICY(secAggPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "secagg";
        d.info.summary = "FedAvg under secure aggregation, as a cost model (the arithmetic is FedAvg's: "
                         "the masks cancel). Per round, with a cohort of n and k = n - 1 neighbours "
                         "(SecAgg) or k = neighbors (SecAgg+): AdvertiseKeys (64 B up, 64 k B down per "
                         "client), ShareKeys (92 k B up and down), each client expands k + 1 masks of P "
                         "elements ((k + 1) P / prg_elements_per_s s of its job, before its steps), the "
                         "masked update goes up as P elements of Z_(2^b) (b = field_bits: ceil(P b / 8) "
                         "B; 32, the default, is FedAvg's 4 P), Unmasking (4 n B down, 32 k B up per "
                         "survivor) and the server expands the masks of every dropped client towards its "
                         "k neighbours (dropped x k x P elements). PRG work is compute: "
                         "energy.per_sample_j x throughput watts. Every message is a transfer on the "
                         "tree, priced in time, bytes, money and energy.";
        d.info.source = "Bonawitz et al., Practical secure aggregation for privacy-preserving machine "
                        "learning, CCS 2017; Bell et al., Secure single-server aggregation with "
                        "(poly)logarithmic overhead (SecAgg+), CCS 2020; the field: Bonawitz et al. "
                        "(inputs, masks and masked inputs are vectors in Z_R^m) and Flower's "
                        "SecAggWorkflow / SecAggPlusWorkflow (modulus_range 2^32 by default)";
        d.info.params = secAggParams().infos();
        d.order = 64;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<SecAgg>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
