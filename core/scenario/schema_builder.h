#pragma once
// Building a schema table (core/scenario/schema.h) for any target type: typed accessors
// bound to members, bounds, conditions, and what the table alone answers (a field by path,
// whether it applies). The scenario's tables (schema.cpp) and the cluster files' tables
// (core/cluster/cluster_schema.cpp) are built with it; reading, writing and checking YAML
// through a table is core/scenario/schema_yaml.h.

#include "core/scenario/schema.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fog::schema {

// --- building the table ---------------------------------------------------------------------

inline FieldBound above(double v) { return {v, false}; } ///< > v
inline FieldBound atLeast(double v) { return {v, true}; } ///< >= v
inline FieldBound below(double v) { return {v, false}; } ///< < v
inline FieldBound atMost(double v) { return {v, true}; } ///< <= v

template <class E> std::vector<std::string> spellings(const std::vector<E>& values) {
    std::vector<std::string> out;
    for (E v : values)
        out.emplace_back(toString(v));
    return out;
}

/// Accessors from a function giving the member: `[](Scenario& s) -> int& { return ...; }`.
template <class T, class Ref> void bind(SchemaField<T>& f, Ref ref) {
    using V = std::remove_reference_t<decltype(ref(std::declval<T&>()))>;
    f.get = [ref](const T& t) -> FieldValue {
        const V& v = ref(const_cast<T&>(t)); // read only
        if constexpr (std::is_same_v<V, int>)
            return static_cast<double>(v);
        else
            return v;
    };
    f.set = [ref](T& t, const FieldValue& value) {
        if constexpr (std::is_same_v<V, int>)
            ref(t) = static_cast<int>(std::get<double>(value));
        else
            ref(t) = std::get<V>(value);
    };
}

/// Accessors of an enum member through its toString() spellings.
template <class T, class E, class Ref>
void bindEnum(SchemaField<T>& f, Ref ref, const std::vector<E>& values) {
    f.enumValues = spellings(values);
    f.get = [ref](const T& t) -> FieldValue { return std::string(toString(ref(const_cast<T&>(t)))); };
    f.set = [ref, values](T& t, const FieldValue& value) {
        const auto& text = std::get<std::string>(value);
        for (E v : values)
            if (text == toString(v)) ref(t) = v;
    };
}

template <class T> struct Builder {
    std::vector<SchemaField<T>> fields;

    SchemaField<T>& add(std::string path, FieldType type, std::string help) {
        SchemaField<T> f;
        f.path = std::move(path);
        f.type = type;
        f.help = std::move(help);
        fields.push_back(std::move(f));
        return fields.back();
    }
    SchemaField<T>& section(std::string path, bool flow, std::string help) {
        auto& f = add(std::move(path), FieldType::Section, std::move(help));
        f.flow = flow;
        return f;
    }
    template <class Ref>
    SchemaField<T>& real(std::string path, Ref ref, std::string unit, std::optional<FieldBound> min,
                         std::optional<FieldBound> max, std::string help) {
        return number(FieldType::Real, std::move(path), ref, std::move(unit), min, max, std::move(help));
    }
    template <class Ref>
    SchemaField<T>& integer(std::string path, Ref ref, std::string unit, std::optional<FieldBound> min,
                            std::optional<FieldBound> max, std::string help) {
        return number(FieldType::Integer, std::move(path), ref, std::move(unit), min, max, std::move(help));
    }
    /// A real or integer field with its unit and bounds.
    template <class Ref>
    SchemaField<T>& number(FieldType type, std::string path, Ref ref, std::string unit, std::optional<FieldBound> min,
                           std::optional<FieldBound> max, std::string help) {
        auto& f = add(std::move(path), type, std::move(help));
        f.unit = std::move(unit);
        f.min = min;
        f.max = max;
        bind(f, ref);
        return f;
    }
    template <class Ref> SchemaField<T>& text(std::string path, Ref ref, std::string help) {
        auto& f = add(std::move(path), FieldType::Text, std::move(help));
        bind(f, ref);
        return f;
    }
    template <class Ref> SchemaField<T>& boolean(std::string path, Ref ref, std::string help) {
        auto& f = add(std::move(path), FieldType::Bool, std::move(help));
        bind(f, ref);
        return f;
    }
    template <class E, class Ref>
    SchemaField<T>& enumeration(std::string path, Ref ref, const std::vector<E>& values,
                                std::string help) {
        auto& f = add(std::move(path), FieldType::Enum, std::move(help));
        bindEnum(f, ref, values);
        return f;
    }
};

inline FieldCondition when(std::string path, std::vector<std::string> values) {
    return {std::move(path), std::move(values)};
}

// --- what the table alone answers -------------------------------------------------------------

template <class T>
const SchemaField<T>* findIn(const std::vector<SchemaField<T>>& table, const std::string& path) {
    for (const auto& f : table)
        if (f.path == path) return &f;
    return nullptr;
}

inline bool pathBelow(const std::string& path, const std::string& section) {
    return path.size() > section.size() && path.compare(0, section.size(), section) == 0 &&
           path[section.size()] == '.';
}

template <class T>
bool conditionHolds(const FieldCondition& c, const std::vector<SchemaField<T>>& table, const T& t) {
    const SchemaField<T>* control = findIn(table, c.path);
    if (!control || !control->get) return true;
    const FieldValue v = control->get(t);
    const auto* text = std::get_if<std::string>(&v);
    return text && std::find(c.values.begin(), c.values.end(), *text) != c.values.end();
}

template <class T>
bool appliesIn(const SchemaField<T>& f, const std::vector<SchemaField<T>>& table, const T& t) {
    for (const auto& g : table) {
        const bool self = &g == &f;
        if (!self && !(g.type == FieldType::Section && pathBelow(f.path, g.path))) continue;
        if (g.when && !conditionHolds(*g.when, table, t)) return false;
        if (g.optional && g.present && !g.present(t)) return false;
    }
    return true;
}

/// The current spelling of the enum at `path` ("" when it names none).
template <class T>
std::string controlValue(const std::vector<SchemaField<T>>& table, const std::string& path, const T& t) {
    for (const auto& f : table)
        if (f.path == path && f.get) {
            const FieldValue v = f.get(t);
            if (const auto* text = std::get_if<std::string>(&v)) return *text;
        }
    return {};
}

// --- the key reference ---------------------------------------------------------------------------

/// The header of a key table: key, type, unit, default, bounds, when it applies, meaning.
inline const char* kMarkdownHead = "| key | type | unit | default | bounds | only with | meaning |\n"
                                   "|---|---|---|---|---|---|---|\n";
/// One row of a key table (docs/scenario.md, docs/cluster.md); `prefix` goes before the path.
std::string markdownRow(const FieldInfo& f, const std::optional<FieldValue>& byDefault, const std::string& prefix);
template <class T>
std::string markdownRows(const std::vector<SchemaField<T>>& table, const T& defaults, const std::string& prefix) {
    std::string out;
    for (const auto& f : table)
        out += markdownRow(f, f.get ? std::optional<FieldValue>(f.get(defaults)) : std::nullopt, prefix);
    return out;
}

} // namespace fog::schema
