// CSV reader: one sample per line, integer label first, numeric features after it.
//
// Numbers are parsed with std::from_chars, which ignores the process locale: Qt sets the
// locale from the environment, and strtod would then read "0.5" wrongly under e.g. de_DE.

#include "core/data/dataset.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <string_view>

namespace fog {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

void splitFields(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    for (;;) {
        const auto comma = line.find(',');
        out.push_back(trim(line.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        line.remove_prefix(comma + 1);
    }
}

bool parseDouble(std::string_view s, double& v) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1); // from_chars rejects a plus sign
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// Labels are integers; "3.0" (as some exporters write) is accepted too.
bool parseLabel(std::string_view s, std::int64_t& y) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), y);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return y >= 0;
    double v = 0.0;
    if (!parseDouble(s, v) || !(v >= 0.0) || v != std::floor(v) || v > 1e15) return false;
    y = static_cast<std::int64_t>(v);
    return true;
}

bool allNumeric(const std::vector<std::string_view>& fields) {
    double v = 0.0;
    for (auto f : fields)
        if (!parseDouble(f, v)) return false;
    return true;
}

} // namespace

Dataset readCsv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DataError(path + ": cannot open the file");

    Dataset d;
    std::string line;
    std::vector<std::string_view> fields;
    std::size_t columns = 0;
    std::int64_t maxLabel = -1;
    bool firstLine = true;
    for (long lineNo = 1; std::getline(in, line); ++lineNo) {
        std::string_view text = trim(line);
        if (lineNo == 1 && text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
            text.remove_prefix(3); // UTF-8 byte order mark from spreadsheet exports
        if (text.empty()) continue; // blank lines (often one at the end) carry nothing
        splitFields(text, fields);
        const auto fail = [&](const std::string& what) {
            throw DataError(path + ":" + std::to_string(lineNo) + ": " + what);
        };
        if (firstLine) {
            firstLine = false;
            if (!allNumeric(fields)) continue; // a header: column names are not numbers
        }
        if (columns == 0) {
            if (fields.size() < 2)
                fail("expected a label and at least one feature, got " +
                     std::to_string(fields.size()) + " column");
            columns = fields.size();
        } else if (fields.size() != columns) {
            fail("expected " + std::to_string(columns) + " columns, got " +
                 std::to_string(fields.size()));
        }
        std::int64_t y = 0;
        if (!parseLabel(fields[0], y))
            fail("label '" + std::string(fields[0]) + "' is not an integer >= 0");
        d.labels.push_back(y);
        maxLabel = std::max(maxLabel, y);
        for (std::size_t c = 1; c < columns; ++c) {
            double v = 0.0;
            if (!parseDouble(fields[c], v) || !std::isfinite(v))
                fail("column " + std::to_string(c + 1) + ": '" + std::string(fields[c]) +
                     "' is not a finite number");
            d.features.push_back(static_cast<float>(v));
        }
    }
    if (in.bad()) throw DataError(path + ": read error");
    if (d.labels.empty()) throw DataError(path + ": no data rows");
    if (maxLabel >= std::numeric_limits<int>::max())
        throw DataError(path + ": label " + std::to_string(maxLabel) + " is too large");

    d.channels = 1;
    d.height = 1;
    d.width = static_cast<int>(columns - 1);
    d.classes = static_cast<int>(maxLabel + 1);
    return d;
}

} // namespace fog
