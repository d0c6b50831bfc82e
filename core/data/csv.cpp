// CSV reader: one sample per line, integer label first, numeric features after it.
//
// Numbers are parsed with std::from_chars, which ignores the process locale: Qt sets the
// locale from the environment, and strtod would then read "0.5" wrongly under e.g. de_DE.

#include "core/data/dataset.h"
#include "core/data/regular_file.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

namespace fog {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
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

/// Lines of a regular file, read in blocks (no iostreams: the file is opened through
/// RegularFile, which refuses FIFOs and devices and never blocks).
class LineReader {
  public:
    explicit LineReader(const std::string& path) : path_(path), file_(path) {
        if (!file_.ok()) throw DataError(path + ": cannot open: " + file_.error());
        if (file_.size() > kMaxCsvBytes)
            throw DataError(path + ": " + std::to_string(file_.size()) +
                            " bytes; CSV data files are limited to " +
                            std::to_string(kMaxCsvBytes) + " bytes (1 GiB)");
    }
    bool next(std::string& line) {
        line.clear();
        for (;;) {
            if (at_ == buffer_.size()) {
                buffer_.resize(1 << 20);
                const long long got = file_.read(buffer_.data(), buffer_.size());
                if (got < 0) throw DataError(path_ + ": read error: " + std::strerror(errno));
                buffer_.resize(static_cast<std::size_t>(got));
                at_ = 0;
                total_ += static_cast<std::uint64_t>(got);
                if (total_ > kMaxCsvBytes)
                    throw DataError(path_ + ": grew beyond " + std::to_string(kMaxCsvBytes) +
                                    " bytes while being read");
                if (got == 0) return !line.empty();
            }
            const auto nl =
                std::find(buffer_.begin() + static_cast<std::ptrdiff_t>(at_), buffer_.end(), '\n');
            line.append(buffer_.begin() + static_cast<std::ptrdiff_t>(at_), nl);
            // A sparse file is one line of zeros as long as the file: refused before it is
            // held whole (a row of the most features allowed is far shorter).
            if (line.size() > kMaxCsvLineBytes)
                throw DataError(path_ + ":" + std::to_string(lines_ + 1) + ": a line longer than " +
                                std::to_string(kMaxCsvLineBytes) + " bytes: not a CSV data file");
            if (nl != buffer_.end()) ++lines_;
            if (nl != buffer_.end()) {
                at_ = static_cast<std::size_t>(nl - buffer_.begin()) + 1;
                return true;
            }
            at_ = buffer_.size();
        }
    }

  private:
    std::string path_;
    RegularFile file_;
    std::vector<char> buffer_;
    std::size_t at_ = 0;
    std::uint64_t total_ = 0;
    long lines_ = 0; ///< lines ended so far
};

/// The text of a line without blanks around it and without a leading byte order mark.
std::string_view lineText(const std::string& line, long lineNo) {
    std::string_view text = trim(line);
    if (lineNo == 1 && text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // UTF-8 byte order mark from spreadsheet exports
    return text;
}

} // namespace

CsvShape probeCsv(const std::string& path) {
    LineReader in(path);
    CsvShape shape;
    std::string line;
    std::vector<std::string_view> fields;
    bool first = true;
    for (long lineNo = 1; in.next(line); ++lineNo) {
        const std::string_view text = lineText(line, lineNo);
        if (text.empty()) continue;
        if (first) {
            first = false;
            splitFields(text, fields);
            shape.features = static_cast<int>(std::min<std::size_t>(fields.size() - 1, 1u << 30));
            if (!allNumeric(fields)) continue; // a header
        }
        ++shape.rows;
    }
    if (shape.rows == 0) throw DataError(path + ": no data rows");
    return shape;
}

Dataset readCsv(const std::string& path) { return readCsv(path, 0, nullptr); }

Dataset readCsv(const std::string& path, int clientColumn, std::vector<std::string>* clients) {
    LineReader in(path);
    const std::size_t client = clientColumn > 0 ? static_cast<std::size_t>(clientColumn - 1) : std::size_t(-1);
    if (clients) clients->clear();

    Dataset d;
    std::string line;
    std::vector<std::string_view> fields;
    std::size_t columns = 0;
    std::int64_t maxLabel = -1;
    bool firstLine = true;
    for (long lineNo = 1; in.next(line); ++lineNo) {
        const std::string_view text = lineText(line, lineNo);
        if (text.empty()) continue; // blank lines (often one at the end) carry nothing
        splitFields(text, fields);
        const auto fail = [&](const std::string& what) {
            throw DataError(path + ":" + std::to_string(lineNo) + ": " + what);
        };
        if (firstLine) {
            firstLine = false;
            std::vector<std::string_view> numeric = fields; // the client column may hold names
            if (client < numeric.size()) numeric.erase(numeric.begin() + static_cast<std::ptrdiff_t>(client));
            if (!allNumeric(numeric)) continue; // a header: column names are not numbers
        }
        if (columns == 0) {
            const std::size_t needed = client == std::size_t(-1) ? 2 : 3;
            if (fields.size() < needed)
                fail("expected a label" + std::string(needed == 3 ? ", the client column" : "") +
                     " and at least one feature, got " + std::to_string(fields.size()) + " column");
            if (client != std::size_t(-1) && (client == 0 || client >= fields.size()))
                fail("data.client_column " + std::to_string(clientColumn) + " is " +
                     (client == 0 ? std::string("the label's column") : "beyond the " + std::to_string(fields.size()) + " columns"));
            columns = fields.size();
        } else if (fields.size() != columns) {
            fail("expected " + std::to_string(columns) + " columns, got " +
                 std::to_string(fields.size()));
        }
        // The text of a bad field is never quoted: the file may be anything (a secrets
        // file named by mistake), and messages reach logs and stored stop reasons.
        std::int64_t y = 0;
        if (!parseLabel(fields[0], y)) fail("the label (column 1) is not an integer >= 0");
        if (y > kMaxLabel)
            fail("the label (column 1) is larger than " + std::to_string(kMaxLabel) + " (at most " +
                 std::to_string(kMaxLabel + 1) + " classes)");
        d.labels.push_back(y);
        maxLabel = std::max(maxLabel, y);
        for (std::size_t c = 1; c < columns; ++c) {
            if (c == client) {
                if (fields[c].empty() || fields[c].size() > 200)
                    fail("the client id (column " + std::to_string(c + 1) + ") is empty or longer than 200 bytes");
                if (clients) clients->emplace_back(fields[c]);
                continue;
            }
            double v = 0.0;
            if (!parseDouble(fields[c], v) || !std::isfinite(v))
                fail("column " + std::to_string(c + 1) + " is not a finite number");
            d.features.push_back(static_cast<float>(v));
        }
    }
    if (d.labels.empty()) throw DataError(path + ": no data rows");

    d.channels = 1;
    d.height = 1;
    d.width = static_cast<int>(columns - (client == std::size_t(-1) ? 1 : 2));
    d.classes = static_cast<int>(maxLabel + 1);
    return d;
}

} // namespace fog
