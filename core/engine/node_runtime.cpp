#include "core/engine/node_runtime.h"
#include "core/util/portable_math.h"

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t streamSeed(std::uint64_t seed, const char* stream, const std::string& node) {
    return deriveSeed(seed, hashName(stream), hashName(node));
}

constexpr std::uint64_t kSeedMultiplier = 6364136223846793005ULL;

std::uint64_t seedStep(std::uint64_t x, std::uint32_t i) { return kSeedMultiplier * (x ^ (x >> 62)) + i; }

double toUniform(std::uint64_t output) { return static_cast<double>(output >> 11) * 0x1.0p-53; }

} // namespace

// std::mt19937_64 without its 2.5 KB state, for its first 156 outputs. Before the engine's
// first refill, output j depends only on the seeded words j, j + 1 and j + 156, and seeding
// is a recurrence (word i from word i - 1 and i). So a cursor holding two seeded words (j
// and j + 156) gives output j in two steps of the recurrence and moves on to j + 1. Bit for
// bit what the standard engine gives (its parameters are fixed by the standard;
// test_network_scale compares the cursor with the engine, and test_golden's presets with
// Markov availability compare every availability event).
NodeRuntime::StreamCursor NodeRuntime::StreamCursor::at(std::uint64_t seed, std::uint32_t k) {
    StreamCursor c;
    std::uint64_t x = seed;
    for (std::uint32_t i = 0; i <= k + 156; ++i) {
        if (i > 0) x = seedStep(x, i);
        if (i == k) c.near = x;
    }
    c.far = x;
    return c;
}

std::uint64_t NodeRuntime::StreamCursor::next(std::uint32_t k) {
    constexpr std::uint64_t upper = ~std::uint64_t(0) << 31, lower = ~upper;
    const std::uint64_t following = seedStep(near, k + 1);
    const std::uint64_t y = (near & upper) | (following & lower);
    std::uint64_t z = far ^ (y >> 1) ^ ((y & 1) ? 0xb5026f5aa96619e9ULL : 0);
    z ^= (z >> 29) & 0x5555555555555555ULL;
    z ^= (z << 17) & 0x71d67fffeda60000ULL;
    z ^= (z << 37) & 0xfff7eee000000000ULL;
    z ^= z >> 43;
    near = following;
    far = seedStep(far, k + 157); // past the last output (word 312): unused, harmless
    return z;
}

NodeRuntime::NodeRuntime(const Topology& topology, std::uint64_t seed)
    : topo_(topology), seed_(seed), slots_(static_cast<std::size_t>(topology.size())), ready_(slots_.size(), 1),
      compute_(slots_.size()), availabilityStream_(hashName("availability")) {}

// ---------------------------------------------------------------- availability

double NodeRuntime::availabilityUniform(int n) {
    // A uniform and an exponential draw each use exactly one engine output (Rng::uniform).
    Slot& s = slots_[n];
    const std::uint32_t k = s.availabilityDraws;
    if (k >= StreamCursor::kOutputs) {
        // Past the cursor's reach (a node that changed state over 150 times): the whole
        // engine, replayed once from the seed.
        auto& kept = kept_[n];
        if (!kept) {
            kept = std::make_unique<Rng>(deriveSeed(seed_, availabilityStream_, hashName(topo_.id(n))));
            for (std::uint32_t i = 0; i < k; ++i) kept->next();
        }
        return kept->uniform();
    }
    if (cursors_.empty()) cursors_.resize(slots_.size());
    StreamCursor& c = cursors_[static_cast<std::size_t>(n)];
    if (k == 0) c = StreamCursor::at(deriveSeed(seed_, availabilityStream_, hashName(topo_.id(n))), 0);
    ++s.availabilityDraws;
    return toUniform(c.next(k));
}

double NodeRuntime::availabilityExponential(int n, double mean) {
    // Rng::exponential(mean) is -mean * log1p(-uniform()): one output, as replayed above.
    return -mean * pmath::log1p(-availabilityUniform(n));
}

void NodeRuntime::initAvailability(int n) {
    startAvailability(n);
    refreshReady(n);
}

void NodeRuntime::startAvailability(int n) {
    Slot& r = slots_[n];
    const auto& a = topo_.entry(n).availability;
    r.nextChange = kInf;
    switch (a.kind) {
    case AvailabilitySpec::Kind::Always:
        r.online = true;
        return;
    case AvailabilitySpec::Kind::Markov:
        if (a.startStationary)
            r.online = availabilityUniform(n) < a.meanUpS / (a.meanUpS + a.meanDownS);
        else
            r.online = a.startOnline;
        r.nextChange = availabilityExponential(n, r.online ? a.meanUpS : a.meanDownS);
        break;
    case AvailabilitySpec::Kind::Trace: {
        r.online = true;
        r.traceIndex = 0;
        while (r.traceIndex < a.offline.size() && a.offline[r.traceIndex].toS <= 0.0) ++r.traceIndex;
        if (r.traceIndex < a.offline.size()) {
            const auto& iv = a.offline[r.traceIndex];
            if (iv.fromS <= 0.0) {
                r.online = false;
                r.nextChange = iv.toS;
            } else {
                r.nextChange = iv.fromS;
            }
        }
        break;
    }
    }
}

void NodeRuntime::joinAvailability(int n, double now) {
    initAvailability(n);
    Slot& r = slots_[n];
    if (topo_.entry(n).availability.kind == AvailabilitySpec::Kind::Markov) {
        r.nextChange += now;
        return;
    }
    while (r.nextChange <= now) advanceAvailability(n, r.nextChange);
}

bool NodeRuntime::advanceAvailability(int n, double now) {
    Slot& r = slots_[n];
    const auto& a = topo_.entry(n).availability;
    const bool wasOnline = r.online;
    if (a.kind == AvailabilitySpec::Kind::Markov) {
        r.nextChange = now + availabilityExponential(n, wasOnline ? a.meanDownS : a.meanUpS);
    } else {
        // Trace: going offline at interval.from, back at interval.to.
        if (wasOnline) {
            r.nextChange = a.offline[r.traceIndex].toS;
        } else {
            ++r.traceIndex;
            r.nextChange = r.traceIndex < a.offline.size() ? a.offline[r.traceIndex].fromS : kInf;
        }
    }
    r.online = !wasOnline;
    refreshReady(n);
    return r.online;
}

// ---------------------------------------------------------------- billing

void NodeRuntime::touch(int n) {
    Slot& s = slots_[n];
    if (s.touched) return;
    s.touched = true;
    s.account = static_cast<std::uint32_t>(accounts_.size());
    accounts_.emplace_back();
    if (!touched_.empty() && touched_.back() > n) touchedSorted_ = false;
    touched_.push_back(n);
}

void NodeRuntime::hold(int n, double now) {
    Slot& r = slots_[n];
    r.acquired = true;
    touch(n);
    if (r.holding || !online(n) || serverless(n)) return;
    r.holding = true;
    r.holdSince = now;
    const double p = pricePerSecond(n);
    holdingRate_ += p;
    holdingRateSince_ += p * now;
    boundMagnitude_ += p + p * now;
}

void NodeRuntime::release(int n, double now) {
    Slot& r = slots_[n];
    if (!r.holding) return;
    r.holding = false;
    // Billed per started second of each holding interval.
    const double bill = std::ceil(now - r.holdSince - 1e-9) * topo_.pricePerHour(n) / 3600.0;
    r.billed += bill;
    accounts_[r.account].heldS += now - r.holdSince;
    const double p = pricePerSecond(n);
    holdingRate_ -= p;
    holdingRateSince_ -= p * r.holdSince;
    billedSum_ += bill;
    boundMagnitude_ += p + p * r.holdSince + std::abs(bill);
}

void NodeRuntime::charge(int n, double usd) {
    touch(n);
    slots_[n].billed += usd;
    billedSum_ += usd;
    boundMagnitude_ += std::abs(usd);
}

void NodeRuntime::chargeInvocation(int n) {
    if (serverless(n)) charge(n, topo_.entry(n).invocationFeeUsd);
}

void NodeRuntime::chargeCompute(int n, double seconds) {
    if (serverless(n) && seconds > 0) charge(n, seconds * topo_.pricePerHour(n) / 3600.0);
}

double NodeRuntime::costAt(double base, double t) const {
    if (!touchedSorted_) {
        std::sort(touched_.begin(), touched_.end());
        touchedSorted_ = true;
    }
    // The nodes never held add exactly 0 (billed 0, not holding): skipping them leaves the
    // sum bit for bit what the sum over all nodes is.
    double c = base;
    for (int i : touched_) {
        const Slot& r = slots_[i];
        c += r.billed;
        if (r.holding)
            c += std::ceil(std::max(0.0, t - r.holdSince - 1e-9)) * topo_.pricePerHour(i) / 3600.0;
    }
    return c;
}

bool NodeRuntime::costMayReach(double base, double t, double budget) const {
    // Each open interval bills at most (t - holdSince + 1) seconds.
    const double bound = base + billedSum_ + holdingRate_ * (t + 1.0) - holdingRateSince_;
    const double margin = 1e-9 * (boundMagnitude_ + std::abs(base) + std::abs(budget) * (1.0 + t)) + 1e-9;
    return bound + margin >= budget;
}

// ---------------------------------------------------------------- energy and work

void NodeRuntime::addEnergy(int n, double joules, EnergyKind kind) {
    touch(n);
    EnergyAccount& a = accounts_[slots_[n].account];
    a.total += joules;
    (kind == EnergyKind::Compute ? a.compute : a.network) += joules;
}

void NodeRuntime::beginCompute(int n, double from, double to) {
    touch(n);
    EnergyAccount& a = accounts_[slots_[n].account];
    a.computeFrom = from;
    a.computeTo = to;
}

void NodeRuntime::endCompute(int n, double until) {
    if (!slots_[n].touched) return;
    EnergyAccount& a = accounts_[slots_[n].account];
    if (a.computeFrom < until) a.computeS += std::min(a.computeTo, until) - a.computeFrom;
    a.computeFrom = a.computeTo = kInf;
}

double NodeRuntime::idleSeconds(int n, double t) const {
    // Held and not computing: a node computes only while held (a job starts on a held node
    // and is cut when it goes offline), so the difference of the two integrals. Serverless
    // nodes are never held.
    const Slot& s = slots_[n];
    if (serverless(n)) return 0.0;
    const EnergyAccount& a = accounts_[s.account];
    double held = a.heldS, computing = a.computeS;
    if (s.holding && t > s.holdSince) held += t - s.holdSince;
    if (a.computeFrom < t) computing += std::min(a.computeTo, t) - a.computeFrom;
    return std::max(0.0, held - computing);
}

EnergySplit NodeRuntime::energyAt(double t) const {
    if (!touchedSorted_) {
        std::sort(touched_.begin(), touched_.end());
        touchedSorted_ = true;
    }
    // Node order, as before the split: with no idle power the total is bit for bit the old sum.
    EnergySplit e;
    for (int i : touched_) {
        const EnergyAccount& a = accounts_[slots_[i].account];
        double node = a.total;
        if (const double w = topo_.entry(i).energy.idleW; w > 0) {
            const double idle = w * idleSeconds(i, t);
            node += idle;
            e.idle += idle;
        }
        e.total += node;
        e.compute += a.compute;
        e.network += a.network;
    }
    return e;
}

Rng& NodeRuntime::computeRng(int n) {
    auto& r = compute_[n];
    if (!r) r = std::make_unique<Rng>(streamSeed(seed_, "compute", topo_.id(n)));
    return *r;
}

} // namespace fog
