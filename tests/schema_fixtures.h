#pragma once
// Shared by the schema tests (test_schema.cpp, test_cluster_schema.cpp): a valid value of a
// table's key other than the one it holds, to write through a table and read back.

#include "core/scenario/schema.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fogtest {

/// A valid value of `f` other than its current one in `t`, within `b`.
template <class T> fog::FieldValue otherValue(const fog::SchemaField<T>& f, const T& t, const fog::NumericBounds& b) {
    using fog::FieldType;
    const fog::FieldValue now = f.get(t);
    switch (f.type) {
    case FieldType::Real: {
        const double v = std::get<double>(now);
        const double lo = std::isfinite(b.min) ? b.min : v - 10;
        const double hi = std::isfinite(b.max) ? b.max : v + 10;
        double x = (lo + hi) / 2;
        if (x == v) x = lo + (hi - lo) / 4;
        return x;
    }
    case FieldType::Range:
        return fog::Range::exactly(std::get<fog::Range>(now).min + 7.5);
    case FieldType::Integer: {
        const double v = std::get<double>(now);
        return v + 1 <= b.max ? v + 1 : v - 1;
    }
    case FieldType::Bool:
        return !std::get<bool>(now);
    case FieldType::Text:
        return std::string("text-") + f.key();
    case FieldType::Enum:
        for (const auto& e : f.enumValues)
            if (e != std::get<std::string>(now)) return e;
        return now;
    case FieldType::Seed:
        return std::get<std::uint64_t>(now) + 12345;
    case FieldType::IntList:
        return std::vector<int>{50, 25};
    case FieldType::Section:
        break;
    }
    return now;
}

} // namespace fogtest
