// Reading and writing the values of a schema table's fields (core/scenario/schema_yaml.h).

#include "core/scenario/schema_yaml.h"

namespace fog::schema {

namespace {

/// Numbers go out in their shortest exact form (the emitter's own would print 0.1 as
/// 0.10000000000000001).
template <class V> void keyValue(YAML::Emitter& out, const char* key, const V& value) {
    out << YAML::Key << key << YAML::Value << value;
}
void keyNumber(YAML::Emitter& out, const char* key, double v) {
    keyValue(out, key, formatNumber(v));
}

void emitRange(YAML::Emitter& out, const char* key, const Range& r) {
    if (r.isExact()) return keyNumber(out, key, r.min);
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
    keyNumber(out, "min", r.min);
    keyNumber(out, "max", r.max);
    out << YAML::EndMap;
}

} // namespace

/// A number, or for groups also {min, max}: the value is drawn per member.
void readRange(MapReader& m, const std::string& key, Range& out, bool allowRange) {
    const YAML::Node n = m.node(key);
    if (!n.IsDefined()) return;
    YamlContext& ctx = m.context();
    const std::string path = m.pathOf(key);
    if (n.IsMap() && allowRange) {
        MapReader r(ctx, n, path);
        Range v = out;
        r.require("min", "the lower end of the range");
        r.require("max", "the upper end of the range");
        r.get("min", v.min);
        r.get("max", v.max);
        out = v;
        return;
    }
    if (n.IsMap()) {
        ctx.error(path, n.Mark(),
                  "must be a number ({min, max} ranges are only for groups), got a map");
        return;
    }
    double v = 0.0;
    if (readValue(ctx, n, path, v)) out = Range::exactly(v);
}

void emitValue(YAML::Emitter& out, const FieldInfo& f, const FieldValue& v) {
    const std::string key = f.key();
    switch (f.type) {
    case FieldType::Real:
        return keyNumber(out, key.c_str(), std::get<double>(v));
    case FieldType::Integer:
        return keyValue(out, key.c_str(), static_cast<int>(std::get<double>(v)));
    case FieldType::Bool:
        return keyValue(out, key.c_str(), std::get<bool>(v));
    case FieldType::Text:
    case FieldType::Enum:
        return keyValue(out, key.c_str(), std::get<std::string>(v));
    case FieldType::Seed:
        return keyValue(out, key.c_str(), std::get<std::uint64_t>(v));
    case FieldType::Range:
        return emitRange(out, key.c_str(), std::get<Range>(v));
    case FieldType::IntList:
        out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (int x : std::get<std::vector<int>>(v))
            out << x;
        out << YAML::EndSeq;
        return;
    case FieldType::Section:
        return;
    }
}

} // namespace fog::schema
