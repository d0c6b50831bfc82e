#pragma once
// Reading, writing and checking YAML through a schema table (core/scenario/schema.h) of any
// target type: the keys of a map in the table's order, typed, with their conditions ("is only
// used with kind: markov"), bounds and did-you-mean for unknown keys (core/scenario/
// yaml_reader.h). Scenario files (scenario_io.cpp) and cluster files (core/cluster/
// cluster_io.cpp) both read and write this way; a custom callback takes over the keys a file
// reads by code of its own (lists, ids, short forms).

#include "core/scenario/schema.h"
#include "core/scenario/schema_builder.h"
#include "core/scenario/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fog::schema {

/// A number, or where `allowRange` (groups) also {min, max}.
void readRange(MapReader& m, const std::string& key, Range& out, bool allowRange);


/// Reads one key of `m` into the field; a missing or ill-typed value leaves the target as is.
template <class T> void readField(MapReader& m, const SchemaField<T>& f, T& t) {
    const std::string key = f.key();
    const FieldValue current = f.get(t);
    auto store = [&](auto value) {
        if (m.get(key, value)) f.set(t, FieldValue(value));
    };
    switch (f.type) {
    case FieldType::Real: {
        double v = std::get<double>(current);
        if (!m.get(key, v)) return;
        // The value that means "not given" cannot be given: it is outside the bounds.
        if (isUnset(f, FieldValue(v))) {
            m.context().error(m.pathOf(key), m.node(key).Mark(),
                              boundsProblem(fieldBounds(f), v) + " (" + f.defaultNote + ")");
            return;
        }
        f.set(t, FieldValue(v));
        return;
    }
    case FieldType::Integer: {
        int v = static_cast<int>(std::get<double>(current));
        if (m.get(key, v)) f.set(t, FieldValue(static_cast<double>(v)));
        return;
    }
    case FieldType::Bool:
        return store(std::get<bool>(current));
    case FieldType::Text:
        return store(std::get<std::string>(current));
    case FieldType::Seed:
        return store(std::get<std::uint64_t>(current));
    case FieldType::IntList:
        return store(std::get<std::vector<int>>(current));
    case FieldType::Range: {
        // A number, or {min, max} where a range is allowed (readRange, for the node keys).
        Range r = std::get<Range>(current);
        readRange(m, key, r, true);
        f.set(t, FieldValue(r));
        return;
    }
    case FieldType::Enum: {
        const YAML::Node n = m.node(key);
        if (!n.IsDefined()) return;
        std::string text;
        if (!readValue(m.context(), n, m.pathOf(key), text)) return;
        if (std::find(f.enumValues.begin(), f.enumValues.end(), text) != f.enumValues.end()) {
            f.set(t, FieldValue(text));
            return;
        }
        m.context().error(m.pathOf(key), n.Mark(),
                          "must be one of " + joinNames(f.enumValues) + ", got '" + text + "'" +
                              didYouMean(text, f.enumValues));
        return;
    }
    case FieldType::Section:
        return;
    }
}

/// Reads the keys of `section` (a path of the table; "" for its top) from the map `m`, in the
/// table's order: a key whose condition does not hold is an error if given ("is only used
/// with kind: markov, not always"), sections open a map of their own. `custom(f, m, t)` takes
/// over a field that applies (returns true) or lets the table read it (false).
template <class T, class Custom>
void readFields(MapReader& m, const std::vector<SchemaField<T>>& table, const std::string& section, T& t,
                Custom&& custom) {
    for (const auto& f : table) {
        if (f.parent() != section) continue;
        const std::string key = f.key();
        if (f.when) {
            const std::string current = controlValue(table, f.when->path, t);
            if (std::find(f.when->values.begin(), f.when->values.end(), current) == f.when->values.end()) {
                const std::string control = f.when->path.substr(f.when->path.rfind('.') + 1);
                m.notApplicable(key, "is only used with " + control + ": " + joinNames(f.when->values) +
                                         ", not " + current);
                continue;
            }
        }
        if (custom(f, m, t)) continue;
        if (f.type != FieldType::Section) {
            readField(m, f, t);
            continue;
        }
        if (!m.has(key)) continue;
        MapReader sub(m.context(), m.node(key), m.pathOf(key));
        readFields(sub, table, f.path, t, custom);
        if (f.optional && f.setPresent) f.setPresent(t, sub.valid());
    }
}

template <class T>
void readFields(MapReader& m, const std::vector<SchemaField<T>>& table, const std::string& section, T& t) {
    readFields(m, table, section, t, [](const SchemaField<T>&, MapReader&, T&) { return false; });
}

/// Writes one field's value under its key, numbers in their shortest exact form.
void emitValue(YAML::Emitter& out, const FieldInfo& f, const FieldValue& v);

/// Writes the keys of `section` that apply, in the table's order; `custom(f, out, t)` writes
/// a field that applies itself (true) or leaves it to the table (false).
template <class T, class Custom>
void emitFields(YAML::Emitter& out, const std::vector<SchemaField<T>>& table, const std::string& section,
                const T& t, Custom&& custom) {
    for (const auto& f : table) {
        if (f.parent() != section) continue;
        if (f.optional && f.present && !f.present(t)) continue;
        if (f.when && !appliesIn(f, table, t)) continue;
        if (custom(f, out, t)) continue;
        if (f.type == FieldType::Section) {
            out << YAML::Key << f.key() << YAML::Value;
            if (f.flow) out << YAML::Flow;
            out << YAML::BeginMap;
            emitFields(out, table, f.path, t, custom);
            out << YAML::EndMap;
            continue;
        }
        const FieldValue v = f.get(t);
        if (f.omitEmpty && std::get<std::string>(v).empty()) continue;
        static const T defaults{};
        if (f.omitDefault && sameFieldValue(v, f.get(defaults))) continue;
        emitValue(out, f, v);
    }
}

template <class T>
void emitFields(YAML::Emitter& out, const std::vector<SchemaField<T>>& table, const std::string& section,
                const T& t) {
    emitFields(out, table, section, t, [](const SchemaField<T>&, YAML::Emitter&, const T&) { return false; });
}

/// The key-level rules of a table (the bounds of every number that applies, below
/// `section`) as diagnostics at `prefix` + the key's path; rules between keys stay with the
/// file's own checks. Custom keys are left to their code.
template <class T>
void checkBounds(const std::vector<SchemaField<T>>& table, const T& t, const std::string& prefix,
                 std::vector<Diagnostic>& out, const std::string& section = "") {
    for (const auto& f : table) {
        if (f.custom || !f.get || !f.isNumber() || !pathWithin(f.path, section)) continue;
        if (!appliesIn(f, table, t)) continue;
        const std::string problem = boundsProblem(fieldBounds(f), std::get<double>(f.get(t)));
        if (!problem.empty()) out.push_back({"", 0, 0, childPath(prefix, f.path), problem});
    }
}

} // namespace fog::schema
