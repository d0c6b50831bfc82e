#pragma once
// Numbers in messages: one way to write them everywhere.

#include <cstdio>
#include <string>

namespace fog {

/// "600", "12.5", "0.1": a time or value for messages and labels.
inline std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// The exact decimal of `v` (round trip), for stored text and exact comparisons.
inline std::string exactNumber(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

} // namespace fog
