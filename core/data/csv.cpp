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
#include <unordered_set>

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

/// Longest client id (data.client_column) a CSV file may hold.
constexpr std::size_t kMaxClientIdBytes = 200;

} // namespace

CsvShape probeCsv(const std::string& path, int clientColumn) {
    LineReader in(path);
    CsvShape shape;
    std::string line;
    std::vector<std::string_view> fields;
    const std::size_t client = clientColumn > 0 ? static_cast<std::size_t>(clientColumn - 1) : std::size_t(-1);
    std::unordered_set<std::string> clients;
    bool first = true;
    for (long lineNo = 1; in.next(line); ++lineNo) {
        const std::string_view text = lineText(line, lineNo);
        if (text.empty()) continue;
        if (first || client != std::size_t(-1)) splitFields(text, fields);
        if (first) {
            first = false;
            shape.features = static_cast<int>(std::min<std::size_t>(fields.size() - 1, 1u << 30));
            // As readCsv: the client column may hold names, a header only words.
            std::vector<std::string_view> numeric = fields;
            if (client < numeric.size()) numeric.erase(numeric.begin() + static_cast<std::ptrdiff_t>(client));
            if (!allNumeric(numeric)) continue; // a header
        }
        ++shape.rows;
        if (client < fields.size() && fields[client].size() <= kMaxClientIdBytes) clients.emplace(fields[client]);
    }
    if (shape.rows == 0) throw DataError(path + ": no data rows");
    shape.clients = clients.size();
    return shape;
}

Dataset readCsv(const std::string& path) { return readCsv(path, 0, nullptr); }

namespace {

/// One pass over a CSV data file: every row is checked; the rows whose index (0-based, data
/// rows only) is in `keep` (sorted), or every row when `keep` is null, are held in `d`.
struct CsvPass {
    Dataset d;
    std::uint64_t rows = 0;    ///< data rows seen
    std::int64_t maxLabel = -1; ///< over every row, held or not
    std::size_t columns = 0;
};

CsvPass csvPass(const std::string& path, int clientColumn, std::vector<std::string>* clients,
                const std::vector<std::int64_t>* keep) {
    LineReader in(path);
    const std::size_t client = clientColumn > 0 ? static_cast<std::size_t>(clientColumn - 1) : std::size_t(-1);
    if (clients) clients->clear();

    CsvPass pass;
    Dataset& d = pass.d;
    std::size_t& columns = pass.columns;
    std::size_t nextKept = 0; // position in *keep
    std::string line;
    std::vector<std::string_view> fields;
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
        const std::uint64_t row = pass.rows++;
        bool held = true;
        if (keep) {
            held = nextKept < keep->size() && static_cast<std::uint64_t>((*keep)[nextKept]) == row;
            if (held) ++nextKept;
        }
        // The text of a bad field is never quoted: the file may be anything (a secrets
        // file named by mistake), and messages reach logs and stored stop reasons.
        std::int64_t y = 0;
        if (!parseLabel(fields[0], y)) fail("the label (column 1) is not an integer >= 0");
        if (y > kMaxLabel)
            fail("the label (column 1) is larger than " + std::to_string(kMaxLabel) + " (at most " +
                 std::to_string(kMaxLabel + 1) + " classes)");
        pass.maxLabel = std::max(pass.maxLabel, y);
        if (held) {
            // What is held is bounded like an IDX file's pixels, before it is allocated: a
            // 1 GiB file of short rows would otherwise take several GiB as labels and floats.
            const std::uint64_t features = columns - (client == std::size_t(-1) ? 1 : 2);
            if (d.labels.size() + 1 > kMaxCsvSamples || (d.labels.size() + 1) * features > kMaxIdxPixels)
                fail("more than " + std::to_string(kMaxCsvSamples) + " samples or " +
                     std::to_string(kMaxIdxPixels) +
                     " feature values in all; CSV data files are limited to these (use "
                     "data.max_train_samples / max_test_samples to keep a subset)");
            d.labels.push_back(y);
        }
        for (std::size_t c = 1; c < columns; ++c) {
            if (c == client) {
                if (fields[c].empty() || fields[c].size() > kMaxClientIdBytes)
                    fail("the client id (column " + std::to_string(c + 1) + ") is empty or longer than " +
                         std::to_string(kMaxClientIdBytes) + " bytes");
                if (clients && held) clients->emplace_back(fields[c]);
                continue;
            }
            double v = 0.0;
            if (!parseDouble(fields[c], v) || !std::isfinite(v))
                fail("column " + std::to_string(c + 1) + " is not a finite number");
            if (held) d.features.push_back(static_cast<float>(v));
        }
    }
    if (pass.rows == 0) throw DataError(path + ": no data rows");
    d.channels = 1;
    d.height = 1;
    d.width = static_cast<int>(columns - (client == std::size_t(-1) ? 1 : 2));
    d.classes = static_cast<int>(pass.maxLabel + 1);
    return pass;
}

} // namespace

Dataset readCsv(const std::string& path, int clientColumn, std::vector<std::string>* clients) {
    return readCsv(path, clientColumn, clients, 0, 0);
}

Dataset readCsv(const std::string& path, int clientColumn, std::vector<std::string>* clients, int keep,
                std::uint64_t seed) {
    if (keep <= 0) return csvPass(path, clientColumn, clients, nullptr).d;
    // Two passes: probeCsv counts the data rows (the same header rule), the second checks
    // every row and holds the seeded subset, the same rows (and classes) as subsetting the
    // whole file afterwards.
    const std::vector<std::int64_t> kept = subsetIndices(probeCsv(path, clientColumn).rows, keep, seed);
    return csvPass(path, clientColumn, clients, &kept).d;
}

} // namespace fog
