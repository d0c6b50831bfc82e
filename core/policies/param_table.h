#pragma once
// A policy's parameters declared once, as ns-3's TypeId attributes are: each with its key,
// help, default and bounds, bound to a typed member of the policy's own settings struct. The
// table gives the descriptor its parameter list (PolicyInfo::params, which the validator,
// the studio, `--set` and the generated reference read) and reads a run's resolved
// PolicyParams into the struct, so that the policy reads `settings.n`, never a parameter by
// name:
//
//     struct Settings { int n = 0; };
//     const ParamTable<Settings>& table() {
//         static const auto t = ParamTable<Settings>()
//             .integer("n", &Settings::n, 1, 1, "gradients per round (trainers)").live();
//         return t;
//     }
//     d.info.params = table().infos();
//     ... table().read(params).n ...
//
// A live parameter (timed `policy` events may change it during a run) is read through a
// LiveParams, which re-reads the run's parameters only when an event changed them. What the
// rest of FogStudio must read of one parameter (a round barrier's count, a tier's deadline)
// it reads through a ParamRef the descriptor holds, `paramRef<table, &Settings::n>()`: the
// policy's typed read and the key its table declares, so no other file names the key.

#include "core/policies/policy_info.h"
#include "core/policies/policy_params.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace fog {

template <typename Settings> class ParamTable {
public:
    /// An integer parameter in [min, max].
    ParamTable& integer(std::string key, int Settings::*member, double def, double min, std::string help,
                        double max = 1e9) {
        return add({std::move(key), def, min, max, true, std::move(help)}, member,
                   [member](Settings& s, double v) { s.*member = static_cast<int>(v); });
    }
    /// A real parameter in [min, max].
    ParamTable& real(std::string key, double Settings::*member, double def, double min, double max,
                     std::string help) {
        return add({std::move(key), def, min, max, false, std::move(help)}, member,
                   [member](Settings& s, double v) { s.*member = v; });
    }
    /// A switch: an integer 0 or 1, true when 1.
    ParamTable& flag(std::string key, bool Settings::*member, bool def, std::string help) {
        return add({std::move(key), def ? 1.0 : 0.0, 0.0, 1.0, true, std::move(help)}, member,
                   [member](Settings& s, double v) { s.*member = static_cast<int>(v) == 1; });
    }
    /// The parameter declared last is live: read at each use, so a timed `policy` event may
    /// change it during a run (PolicyParamInfo::live).
    ParamTable& live() {
        infos_.back().live = true;
        return *this;
    }

    /// The declarations, in order (the descriptor's PolicyInfo::params).
    const std::vector<PolicyParamInfo>& infos() const { return infos_; }
    /// The typed values of a run's parameters (resolved: every declared key has a value).
    Settings read(const PolicyParams& params) const {
        Settings s{};
        for (std::size_t i = 0; i < infos_.size(); ++i) setters_[i](s, params.get(infos_[i].key));
        return s;
    }
    /// The key declared for `member`; std::logic_error if the table does not declare it (a
    /// programming error, seen when the descriptor is built).
    template <typename T> const std::string& keyOf(T Settings::*member) const {
        for (std::size_t i = 0; i < infos_.size(); ++i)
            if (const auto* m = std::get_if<T Settings::*>(&members_[i]); m && *m == member)
                return infos_[i].key;
        throw std::logic_error("a ParamTable is asked for the key of a member it does not declare");
    }

private:
    /// Which member a declaration is bound to (compared by keyOf, never dereferenced).
    using Member = std::variant<int Settings::*, double Settings::*, bool Settings::*>;
    ParamTable& add(PolicyParamInfo info, Member member, std::function<void(Settings&, double)> set) {
        infos_.push_back(std::move(info));
        members_.push_back(member);
        setters_.push_back(std::move(set));
        return *this;
    }
    std::vector<PolicyParamInfo> infos_;
    std::vector<Member> members_;
    std::vector<std::function<void(Settings&, double)>> setters_;
};

/// One parameter of a policy as other code reads it (a descriptor's RoundBarrier::count,
/// LevelUse::first): the policy's typed read of it from a run's resolved parameters, and the
/// key its ParamTable declares, for text that names it (never to look it up). Empty (no
/// read): the policy has no such parameter.
template <typename T> struct ParamRef {
    T (*read)(const PolicyParams& params) = nullptr;
    std::string key;
    explicit operator bool() const { return read != nullptr; }
};

/// The ParamRef of `member` of the table that `table()` returns (the policy's table function):
/// `d.barrier.count = paramRef<nSyncParams, &NSyncSettings::n>();`.
template <auto table, auto member> auto paramRef() {
    using Settings = std::decay_t<decltype(table().read(std::declval<const PolicyParams&>()))>;
    using T = std::decay_t<decltype(std::declval<Settings&>().*member)>;
    ParamRef<T> ref;
    ref.read = [](const PolicyParams& params) -> T { return table().read(params).*member; };
    ref.key = table().keyOf(member);
    return ref;
}

/// A policy's typed view of parameters that may change during a run: of(p) gives the values
/// of `p` now, re-read only when a timed `policy` event has changed `p` since the last read
/// (PolicyParams::revision).
template <typename Settings> class LiveParams {
public:
    explicit LiveParams(const ParamTable<Settings>& table) : table_(&table) {}
    const Settings& of(const PolicyParams& params) const {
        if (&params != from_ || params.revision() != revision_) {
            values_ = table_->read(params);
            from_ = &params;
            revision_ = params.revision();
        }
        return values_;
    }

private:
    const ParamTable<Settings>* table_;
    mutable Settings values_{};
    mutable const PolicyParams* from_ = nullptr;
    mutable std::uint64_t revision_ = 0;
};

} // namespace fog
