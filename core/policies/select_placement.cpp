// Cloudless-style elastic placement ([reconstructed]): decide how many workers run in each
// region from its free capacity (its online trainers), its price and its share of the data
// (core/planning/placement.h); every round each region's cheapest (then fastest) online
// trainers fill its quota. Elastic (issue 18): when prices, availability or throughput
// change during the run, re-plan with the current offers; a plan that moves workers between
// regions is a migration, paid as network transfers (the model, and the data that must
// follow) from the old region to the new one, and a moved worker trains only once its
// transfer has arrived. Combine with async-ga in one region or model-averaging across
// regions, as Cloudless-Training does. docs/policies.md, "placement".

#include "core/planning/placement.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace fog {

namespace {

/// A trainer's region: its `region` label, else the parameter server (root) it reports to.
std::string regionOf(const SystemView& e, int trainer) {
    const Node& n = e.topology().node(trainer);
    if (!n.spec.region.empty()) return n.spec.region;
    int a = n.aggregator;
    while (a >= 0 && e.topology().node(a).aggregator >= 0) a = e.topology().node(a).aggregator;
    return a >= 0 ? e.topology().node(a).spec.id : std::string();
}

std::string number(double v) {
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

bool sameOffers(const std::vector<RegionOffer>& a, const std::vector<RegionOffer>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].capacity != b[i].capacity || a[i].pricePerHour != b[i].pricePerHour) return false;
    return true;
}

struct PlacementSettings {
    int workers = 0;          ///< W
    double hours = 0.0;       ///< expected job length
    double dataGb = 0.0;      ///< 0: from the data set
    double egressPerGb = 0.0;
    int minPerRegion = 0;
    bool elastic = false;     ///< re-plan when the offers change (live)
    double minSaving = 0.0;   ///< hysteresis of a re-plan (live)
};

const ParamTable<PlacementSettings>& placementParams() {
    static const auto t =
        ParamTable<PlacementSettings>()
            .integer("workers", &PlacementSettings::workers, 4, 1, "W: workers in all regions together")
            .real("hours", &PlacementSettings::hours, 1.0, 0.0, 1e9, "expected job length in hours (weighs prices)")
            .real("data_gb", &PlacementSettings::dataGb, 0.0, 0.0, 1e12, "training data size in GB; 0 = from the data set")
            .real("egress_per_gb", &PlacementSettings::egressPerGb, 0.09, 0.0, 1e9, "price of moving 1 GB out of a region")
            .integer("min_per_region", &PlacementSettings::minPerRegion, 1, 0,
                     "workers each region keeps (its server needs one)")
            .flag("elastic", &PlacementSettings::elastic, true,
                  "1: re-plan when prices or availability change; 0: plan once")
            .live()
            .real("min_saving", &PlacementSettings::minSaving, 0.1, 0.0, 1.0,
                  "hysteresis: a re-plan moves workers only if it saves this fraction of the "
                  "current plan's remaining cost")
            .live();
    return t;
}

class SelectPlacement : public SelectionPolicy {
public:
    SelectPlacement(const SystemView& e, const PlacementModel& model, std::vector<RegionOffer> offers,
                    std::vector<int> plan)
        : model_(model), offers_(std::move(offers)), plan_(std::move(plan)), settings_(placementParams()) {
        for (const auto& r : offers_) names_.push_back(r.name);
        members_.resize(names_.size());
        for (int t : e.topology().trainers()) {
            const auto i = static_cast<std::size_t>(
                std::find(names_.begin(), names_.end(), regionOf(e, t)) - names_.begin());
            members_[i].push_back(t);
            regionIndex_[t] = i;
        }
        modelGb_ = e.modelBytes() / 1e9;
    }

    void start(PolicyContext& e) override {
        if (elastic(e)) {
            // The offers of t = 0 (trace rows and events at 0 applied, nodes offline from the
            // start not counted): the first plan needs no migration, nothing ran yet.
            std::vector<RegionOffer> now = currentOffers(e);
            if (!sameOffers(now, offers_)) {
                offers_ = std::move(now);
                plan_ = placeWorkers(offers_, model_);
            }
        }
        e.report(PolicyEvent::Placement, -1,
                 quotaText(plan_) + " predicted_cost=" + number(placementCost(offers_, model_, plan_)));
    }

    std::vector<int> select(const SystemView& e, int aggregator, int, const std::vector<int>& candidates,
                            Rng&) override {
        std::vector<std::vector<std::tuple<double, double, int>>> byRegion(names_.size());
        for (int t : candidates)
            if (!pending_.count(t)) byRegion[regionIndex_.at(t)].emplace_back(rank(e, t));
        // Under async policies selection tops up after each arrival: workers still busy
        // already fill part of their region's quota, and so do those still migrating.
        std::vector<int> taken(names_.size(), 0);
        for (int t : e.trainersOf(aggregator)) {
            if (e.isBusy(t)) ++taken[regionIndex_.at(t)];
            if (const auto it = pending_.find(t); it != pending_.end()) taken[regionIndex_.at(t)] += it->second;
        }
        std::vector<int> out;
        for (std::size_t r = 0; r < names_.size(); ++r) {
            auto& list = byRegion[r];
            std::sort(list.begin(), list.end());
            const std::size_t n = static_cast<std::size_t>(std::max(0, plan_[r] - taken[r]));
            for (std::size_t i = 0; i < std::min(n, list.size()); ++i) out.push_back(std::get<2>(list[i]));
        }
        std::sort(out.begin(), out.end());
        used_.insert(out.begin(), out.end());
        return out;
    }

    void onOffersChanged(PolicyContext& e) override {
        if (!elastic(e) || e.stopped()) return;
        std::vector<RegionOffer> now = currentOffers(e);
        if (sameOffers(now, offers_)) return; // a link, or a price outside the regions: nothing to weigh
        offers_ = std::move(now);
        PlacementModel m = model_;
        m.hours = std::max(0.0, model_.hours - e.now() / 3600.0); // what is left of the job
        const double minSaving = settings_.of(e.selectionParams()).minSaving;
        const Replan r = replanWorkers(offers_, m, modelGb_, plan_, minSaving);
        if (!r.changed) {
            e.report(PolicyEvent::Placement, -1,
                     "replan kept " + quotaText(plan_) + " saving=" + number(r.saving) + " min_saving=" +
                         number(minSaving) + " horizon_h=" + number(m.hours));
            return;
        }
        migrate(e, m, r);
    }

private:
    bool elastic(const SystemView& e) const { return settings_.of(e.selectionParams()).elastic; }

    std::tuple<double, double, int> rank(const SystemView& e, int t) const {
        return {expectedRoundCost(e, t), expectedRoundSeconds(e, t), t};
    }

    std::string quotaText(const std::vector<int>& w) const {
        std::string s;
        for (std::size_t i = 0; i < names_.size(); ++i) s += (i ? " " : "") + names_[i] + "=" + std::to_string(w[i]);
        return s;
    }

    /// Capacity: the region's trainers online now; price: their mean price now (all of
    /// them when none is online); data share: fixed (where the samples were at the start).
    std::vector<RegionOffer> currentOffers(const SystemView& e) const {
        std::vector<RegionOffer> out = offers_;
        for (std::size_t r = 0; r < names_.size(); ++r) {
            double online = 0, all = 0;
            int n = 0;
            for (int t : members_[r]) {
                const double p = e.topology().pricePerHour(t);
                all += p;
                if (e.isOnline(t)) {
                    online += p;
                    ++n;
                }
            }
            out[r].capacity = n;
            out[r].pricePerHour = n > 0 ? online / n : all / static_cast<double>(members_[r].size());
        }
        return out;
    }

    /// Region r's online trainers, best first (the order select fills its quota in).
    std::vector<int> ranked(const SystemView& e, std::size_t r) const {
        std::vector<std::tuple<double, double, int>> list;
        for (int t : members_[r])
            if (e.isOnline(t)) list.emplace_back(rank(e, t));
        std::sort(list.begin(), list.end());
        std::vector<int> out;
        for (const auto& x : list) out.push_back(std::get<2>(x));
        return out;
    }

    /// Pairs the workers leaving regions with those arriving (region order), and sends each
    /// arriving worker the model, plus its share of the data that must now leave the old
    /// region, from a worker giving up its place there (else that region's server).
    void migrate(PolicyContext& e, const PlacementModel& m, const Replan& r) {
        const std::vector<int> old = plan_;
        plan_ = r.workers;
        std::vector<std::size_t> from, to;
        for (std::size_t i = 0; i < names_.size(); ++i) {
            for (int k = r.workers[i]; k < old[i]; ++k) from.push_back(i);
            for (int k = old[i]; k < r.workers[i]; ++k) to.push_back(i);
        }
        const std::size_t moves = std::min(from.size(), to.size());
        // Data that must now leave each region (model's data_gb), shared by its moves.
        std::vector<double> dataBytes(names_.size(), 0.0);
        std::vector<int> movesOut(names_.size(), 0);
        for (std::size_t k = 0; k < moves; ++k) ++movesOut[from[k]];
        const double W = std::max(1, m.workers);
        for (std::size_t i = 0; i < names_.size(); ++i) {
            const double before = std::max(0.0, offers_[i].dataShare - old[i] / W);
            const double after = std::max(0.0, offers_[i].dataShare - r.workers[i] / W);
            if (movesOut[i] > 0) dataBytes[i] = std::max(0.0, after - before) * m.dataGb * 1e9 / movesOut[i];
        }
        // A region that loses places keeps its best new_a online workers in use; the others
        // it used are released (no longer rented: billing ends with their current job), and
        // the online ones among them send the migrations, best first.
        std::vector<std::vector<int>> leaving(names_.size());
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (r.workers[i] >= old[i]) continue;
            std::vector<std::tuple<double, double, int>> inUse;
            for (int t : members_[i])
                if (used_.count(t)) inUse.emplace_back(rank(e, t));
            std::sort(inUse.begin(), inUse.end());
            int keep = r.workers[i];
            std::vector<int> offline;
            for (const auto& x : inUse) {
                const int t = std::get<2>(x);
                if (e.isOnline(t) && keep > 0) {
                    --keep;
                    continue;
                }
                (e.isOnline(t) ? leaving[i] : offline).push_back(t);
            }
            for (int t : leaving[i]) e.releaseTrainer(t);
            for (int t : offline) e.releaseTrainer(t);
            for (int t : leaving[i]) used_.erase(t);
            for (int t : offline) used_.erase(t);
        }
        std::vector<std::size_t> nextSource(names_.size(), 0);
        std::vector<std::vector<int>> ranks(names_.size()), targets(names_.size());
        std::vector<bool> cached(names_.size(), false);
        auto rankedOf = [&](std::size_t i) -> const std::vector<int>& {
            if (!cached[i]) {
                ranks[i] = ranked(e, i);
                cached[i] = true;
                // Targets: b's online trainers in rank order, after those already placed and
                // not one already receiving a migration.
                int placed = old[i];
                for (const auto& [t, n] : pending_)
                    if (regionIndex_.at(t) == i) placed -= n;
                for (int t : ranks[i]) {
                    if (pending_.count(t)) continue;
                    if (placed > 0) {
                        --placed;
                        continue;
                    }
                    targets[i].push_back(t);
                }
                std::reverse(targets[i].begin(), targets[i].end()); // taken from the back
            }
            return ranks[i];
        };
        double bytes = 0, price = 0;
        std::ostringstream routes;
        const int batch = ++batches_;
        auto& state = batchState_[batch];
        state.started = e.now();
        for (std::size_t k = 0; k < moves; ++k) {
            const std::size_t a = from[k], b = to[k];
            // Source: the next online worker leaving a; else the server a's trainers report to.
            const std::size_t j = nextSource[a]++;
            const int src = j < leaving[a].size() ? leaving[a][j] : e.serverOf(members_[a].front());
            const auto& rb = rankedOf(b);
            int dst;
            if (!targets[b].empty()) {
                dst = targets[b].back();
                targets[b].pop_back();
            } else { // more moves than free trainers (cannot happen: w_b <= capacity_b)
                dst = rb.empty() ? members_[b].front() : rb.back();
            }
            const double size = e.modelBytes() + dataBytes[a];
            const std::vector<int> legs = route(e, src, dst);
            for (std::size_t l = 0; l + 1 < legs.size(); ++l) price += e.topology().transfer(legs[l], legs[l + 1], size).price;
            bytes += size;
            ++pending_[dst];
            ++state.left;
            routes << (k ? "," : "") << e.topology().id(src) << ">" << e.topology().id(dst);
            sendLegs(e, legs, 0, size, dst, batch);
        }
        state.transfers = static_cast<int>(moves);
        std::string detail = "replan " + quotaText(plan_) + " was " + quotaText(old) +
                             (r.forced ? " forced=capacity" : " saving=" + number(r.saving)) +
                             " moved=" + std::to_string(moves) + " migration_bytes=" + number(bytes) +
                             " migration_cost=" + number(price) + " model_migration_cost=" + number(r.migration) +
                             " keep_cost=" + number(r.keepCost) + " plan_cost=" + number(r.bestCost) +
                             " horizon_h=" + number(m.hours);
        if (moves > 0) detail += " routes=" + routes.str();
        e.report(PolicyEvent::Placement, -1, detail);
        if (moves == 0) batchState_.erase(batch);
    }

    static int rootOf(const SystemView& e, int n) {
        while (e.topology().parent(n) >= 0) n = e.topology().parent(n);
        return n;
    }

    /// The stops of a migration: src, dst in one tree; else src, its tree's root, dst's
    /// root, dst (the roots talk over their explicit link: between two trees the topology
    /// has no path of its own), store and forward.
    static std::vector<int> route(const SystemView& e, int src, int dst) {
        const int ra = rootOf(e, src), rb = rootOf(e, dst);
        if (ra == rb) return {src, dst};
        std::vector<int> legs = {src};
        if (src != ra) legs.push_back(ra);
        legs.push_back(rb);
        if (dst != rb) legs.push_back(dst);
        return legs;
    }

    void sendLegs(PolicyContext& e, std::vector<int> legs, std::size_t leg, double size, int dst, int batch) {
        PolicyContext* ctx = &e;
        const int from = legs[leg], to = legs[leg + 1];
        e.send(from, to, size, [this, ctx, legs = std::move(legs), leg, size, dst, batch]() mutable {
            if (leg + 2 < legs.size())
                sendLegs(*ctx, std::move(legs), leg + 1, size, dst, batch);
            else
                arrived(*ctx, dst, batch);
        });
    }

    void arrived(PolicyContext& e, int dst, int batch) {
        if (auto it = pending_.find(dst); it != pending_.end() && --it->second == 0) pending_.erase(it);
        auto& state = batchState_[batch];
        if (--state.left == 0) {
            e.report(PolicyEvent::Placement, dst,
                     "migration done: " + std::to_string(state.transfers) + " transfer(s) of the re-plan at t=" +
                         number(state.started) + " s, last after " + number(e.now() - state.started) + " s");
            batchState_.erase(batch);
        }
        // The region may start a worker now: the target, or its best idle trainer online.
        const std::size_t b = regionIndex_.at(dst);
        int ready = dst;
        if (!e.isOnline(dst) || e.isBusy(dst))
            for (int t : ranked(e, b))
                if (!e.isBusy(t)) {
                    ready = t;
                    break;
                }
        e.notifyTrainerAvailable(ready);
    }

    PlacementModel model_;            ///< hours: the whole job's (re-plans use what is left)
    std::vector<RegionOffer> offers_; ///< the offers the current plan was made with
    std::vector<int> plan_;           ///< workers per region, in names_ order
    LiveParams<PlacementSettings> settings_; ///< elastic and min_saving, read at each use
    std::vector<std::string> names_;
    std::vector<std::vector<int>> members_;      ///< trainers per region
    std::map<int, std::size_t> regionIndex_;     ///< trainer -> region
    std::map<int, int> pending_;                 ///< trainer -> migrations to it in flight
    std::set<int> used_;                         ///< trainers selected and not released since
    struct Batch {
        double started = 0;
        int left = 0, transfers = 0;
    };
    std::map<int, Batch> batchState_; ///< re-plans whose migration is in flight
    int batches_ = 0;
    double modelGb_ = 0;
};

} // namespace

static std::unique_ptr<SelectionPolicy> makeSelectPlacement(const PolicyParams& p, const SystemView& e) {
    std::map<std::string, RegionOffer> offers;
    double total = 0;
    for (int t : e.topology().trainers()) {
        auto& r = offers[regionOf(e, t)];
        r.name = regionOf(e, t);
        ++r.capacity;
        r.pricePerHour += e.topology().node(t).spec.pricePerHour; // a sum until divided below
        r.dataShare += static_cast<double>(e.samplesOf(t));
        total += static_cast<double>(e.samplesOf(t));
    }
    std::vector<RegionOffer> regions;
    for (auto& [name, r] : offers) {
        r.pricePerHour /= r.capacity;
        r.dataShare = total > 0 ? r.dataShare / total : 0.0;
        regions.push_back(r);
    }
    PlacementModel m;
    const PlacementSettings s = placementParams().read(p);
    m.workers = s.workers;
    m.hours = s.hours;
    m.egressPerGb = s.egressPerGb;
    m.minPerRegion = s.minPerRegion;
    m.dataGb = s.dataGb;
    if (m.dataGb <= 0) {
        const auto& d = e.data().train;
        m.dataGb = static_cast<double>(d.size()) * (4.0 * d.featureCount() + 8.0) / 1e9;
    }
    std::vector<int> w = placeWorkers(regions, m);
    return std::make_unique<SelectPlacement>(e, m, std::move(regions), std::move(w));
}

FOG_SELECTION_POLICY(selectPlacementPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "placement";
        d.info.summary = "Elastic placement across regions: choose w_r workers per region (a region = the "
                         "trainers' region label, else their parameter server) minimising sum_r w_r "
                         "price_r hours + egress x data_gb x sum_r max(0, d_r - w_r / W) (compute plus "
                         "the data that must leave a region with less than its data share d_r of the "
                         "workers), sum w_r = W, min_per_region <= w_r <= the region's online trainers; "
                         "greedy on marginal cost (exact, convex). Each round a region's cheapest, then "
                         "fastest, online trainers fill its quota. Elastic: when prices, availability or "
                         "throughput change, re-plan over the hours left, moving workers only if that "
                         "saves at least min_saving of the current plan's remaining cost (or the current "
                         "plan lost its capacity); a moved worker receives the model and the data that "
                         "must follow over the network before it trains. Combine with async-ga or "
                         "model-averaging.";
        d.info.source = "Tan et al., Cloudless-Training, Chinese High Technology Letters 2024 "
                        "[reconstructed]";
        d.info.params = placementParams().infos();
        d.order = 100;
        d.make = makeSelectPlacement;
        return d;
    }();
    return d;
}

} // namespace fog
