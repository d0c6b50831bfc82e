// LEAF's JSON data format (Caldas et al., "LEAF: A Benchmark for Federated Settings"):
//   {"users": ["f0001", ...], "num_samples": [27, ...],
//    "user_data": {"f0001": {"x": [[0.1, ...], ...], "y": [3, ...]}, ...}}
// One writer per user: the natural partition. A small JSON reader of its own (no library),
// that reads the numbers straight into the arrays and locates every problem by line and
// column; the users and their sample counts are read (first pass) before anything is
// allocated for the samples.

#include "core/data/dataset.h"
#include "core/data/regular_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <string_view>

namespace fog {

namespace {

/// Largest LEAF file read: 1 GiB, as CSV files.
constexpr std::uint64_t kMaxLeafBytes = kMaxCsvBytes;
/// Longest user name kept (names are quoted in messages; longer ones are refused).
constexpr std::size_t kMaxUserName = 200;

class JsonReader {
  public:
    JsonReader(std::string_view text, std::string file) : begin_(text.data()), p_(text.data()),
                                                          end_(text.data() + text.size()), file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& what) const { failAt(p_, what); }
    [[noreturn]] void failAt(const char* at, const std::string& what) const {
        long line = 1, col = 1;
        for (const char* q = begin_; q < at && q < end_; ++q) {
            if (*q == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw DataError(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
    }
    /// Continues reading at `at` (a place this reader returned from at()).
    void seek(const char* at) { p_ = at; }
    /// Where the next value starts (after blanks): for locating problems about it.
    const char* at() {
        ws();
        return p_;
    }

    void ws() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    char peek() {
        ws();
        return p_ < end_ ? *p_ : '\0';
    }
    bool atEnd() {
        ws();
        return p_ >= end_;
    }
    void expect(char c, const char* what) {
        if (peek() != c) fail(std::string("expected ") + what);
        ++p_;
    }
    /// After a value in an array or object: true if another follows (a comma), false at `close`.
    bool more(char close) {
        const char c = peek();
        if (c == ',') {
            ++p_;
            return true;
        }
        if (c == close) {
            ++p_;
            return false;
        }
        fail(std::string("expected ',' or '") + close + "'");
    }
    /// Opens an array: false if it is empty (and consumes its ']').
    bool openArray(const char* what) {
        expect('[', what);
        if (peek() == ']') {
            ++p_;
            return false;
        }
        return true;
    }
    bool openObject(const char* what) {
        expect('{', what);
        if (peek() == '}') {
            ++p_;
            return false;
        }
        return true;
    }

    std::string string() {
        if (peek() != '"') fail("expected a string");
        ++p_;
        std::string s;
        while (p_ < end_ && *p_ != '"') {
            if (*p_ == '\\') {
                ++p_;
                if (p_ >= end_) break;
                const char e = *p_++;
                switch (e) {
                case 'n': s += '\n'; break;
                case 't': s += '\t'; break;
                case 'r': s += '\r'; break;
                case 'b': s += '\b'; break;
                case 'f': s += '\f'; break;
                case 'u': {
                    if (end_ - p_ < 4) fail("a \\u escape needs four hex digits");
                    unsigned v = 0;
                    const auto r = std::from_chars(p_, p_ + 4, v, 16);
                    if (r.ptr != p_ + 4) fail("a \\u escape needs four hex digits");
                    p_ += 4;
                    if (v < 0x80) {
                        s += static_cast<char>(v);
                    } else if (v < 0x800) {
                        s += static_cast<char>(0xC0 | (v >> 6));
                        s += static_cast<char>(0x80 | (v & 0x3F));
                    } else {
                        s += static_cast<char>(0xE0 | (v >> 12));
                        s += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
                        s += static_cast<char>(0x80 | (v & 0x3F));
                    }
                    break;
                }
                default: s += e; break;
                }
            } else {
                s += *p_++;
            }
            if (s.size() > (std::size_t(1) << 20)) fail("a string longer than 1 MiB");
        }
        if (p_ >= end_) fail("a string is not closed");
        ++p_;
        return s;
    }

    double number() {
        ws();
        const char* start = p_;
        while (p_ < end_ && (std::isdigit(static_cast<unsigned char>(*p_)) || *p_ == '-' || *p_ == '+' ||
                             *p_ == '.' || *p_ == 'e' || *p_ == 'E'))
            ++p_;
        double v = 0.0;
        const char* from = start;
        if (from < p_ && *from == '+') ++from;
        const auto r = std::from_chars(from, p_, v);
        if (start == p_ || r.ec != std::errc() || r.ptr != p_ || !std::isfinite(v)) {
            p_ = start;
            fail("expected a finite number");
        }
        return v;
    }

    /// Skips any value (for keys LEAF files may carry besides the three read here).
    void skip(int depth = 0) {
        if (depth > 64) fail("nested more than 64 levels deep");
        const char c = peek();
        if (c == '"') {
            string();
        } else if (c == '[') {
            if (openArray("'['"))
                do skip(depth + 1);
                while (more(']'));
        } else if (c == '{') {
            if (openObject("'{'"))
                do {
                    string();
                    expect(':', "':'");
                    skip(depth + 1);
                } while (more('}'));
        } else if (c == 't' || c == 'f' || c == 'n') {
            for (const char* word : {"true", "false", "null"}) {
                const std::size_t n = std::strlen(word);
                if (static_cast<std::size_t>(end_ - p_) >= n && std::memcmp(p_, word, n) == 0) {
                    p_ += n;
                    return;
                }
            }
            fail("expected a value");
        } else {
            number();
        }
    }

  private:
    const char* begin_;
    const char* p_;
    const char* end_;
    std::string file_;
};

std::string readWhole(const std::string& path) {
    RegularFile f(path);
    if (!f.ok()) throw DataError(path + ": cannot open: " + f.error());
    if (f.size() > kMaxLeafBytes)
        throw DataError(path + ": " + std::to_string(f.size()) + " bytes; LEAF data files are limited to " +
                        std::to_string(kMaxLeafBytes) + " bytes (1 GiB)");
    std::string text(static_cast<std::size_t>(f.size()), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const long long n = f.read(text.data() + got, text.size() - got);
        if (n < 0) throw DataError(path + ": read error: " + std::strerror(errno));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    return text;
}

/// One sample's x: a flat list of numbers, or a list of equal-length rows. Appends the
/// values to `out` and returns the shape (rows, cols; rows 0 for a flat list).
std::pair<int, int> readSample(JsonReader& in, std::vector<float>& out, std::size_t budget) {
    if (in.peek() != '[') in.fail("a sample's x is a list of numbers (or of rows of numbers)");
    if (!in.openArray("'['")) in.fail("a sample's x is empty");
    const std::size_t before = out.size();
    if (in.peek() == '[') {
        int rows = 0, cols = -1;
        do {
            if (!in.openArray("'['")) in.fail("an empty row");
            int n = 0;
            do {
                if (out.size() - before >= budget) in.failAt(in.at(), "a sample larger than the first one");
                out.push_back(static_cast<float>(in.number()));
                ++n;
            } while (in.more(']'));
            if (cols >= 0 && n != cols)
                in.fail("a row of " + std::to_string(n) + " values; the sample's first row has " + std::to_string(cols));
            cols = n;
            ++rows;
        } while (in.more(']'));
        return {rows, cols};
    }
    int n = 0;
    do {
        if (out.size() - before >= budget) in.failAt(in.at(), "a sample larger than the first one");
        out.push_back(static_cast<float>(in.number()));
        ++n;
    } while (in.more(']'));
    return {0, n};
}

/// Pass 1 over a LEAF file's text: the users, their num_samples and where user_data starts,
/// checked against each other and against the file's length before anything is allocated
/// for the samples.
struct LeafIndex {
    std::vector<std::string> users;
    std::vector<std::int64_t> counts;
    std::map<std::string, std::size_t> index;
    std::uint64_t total = 0;
    const char* userData = nullptr;
    const char* usersAt = nullptr;
    const char* countsAt = nullptr;
};

LeafIndex indexLeaf(const std::string& text, const std::string& path) {
    LeafIndex x;
    auto& users = x.users;
    auto& counts = x.counts;
    {
        JsonReader in(text, path);
        if (!in.openObject("a JSON object {\"users\": ..., \"num_samples\": ..., \"user_data\": ...}"))
            in.fail("an empty object: LEAF data have users, num_samples and user_data");
        do {
            const char* keyAt = in.at();
            const std::string key = in.string();
            in.expect(':', "':'");
            if (key == "users") {
                x.usersAt = keyAt;
                if (in.openArray("a list of user names"))
                    do {
                        std::string u = in.string();
                        if (u.empty() || u.size() > kMaxUserName)
                            in.fail("a user name is empty or longer than " + std::to_string(kMaxUserName) + " bytes");
                        users.push_back(std::move(u));
                    } while (in.more(']'));
            } else if (key == "num_samples") {
                x.countsAt = keyAt;
                if (in.openArray("a list of sample counts"))
                    do {
                        const double v = in.number();
                        if (v < 0 || v != std::floor(v) || v > 1e12) in.fail("a sample count is a whole number >= 0");
                        counts.push_back(static_cast<std::int64_t>(v));
                    } while (in.more(']'));
            } else if (key == "user_data") {
                x.userData = in.at();
                in.skip();
            } else {
                in.skip(); // e.g. "hierarchies"
            }
        } while (in.more('}'));
        if (!in.atEnd()) in.fail("text after the JSON object");
        if (!x.usersAt) in.failAt(text.data(), "no \"users\" list");
        if (!x.countsAt) in.failAt(text.data(), "no \"num_samples\" list");
        if (!x.userData) in.failAt(text.data(), "no \"user_data\" object");
        if (users.empty()) in.failAt(x.usersAt, "\"users\" is empty");
        if (counts.size() != users.size())
            in.failAt(x.countsAt, "\"num_samples\" has " + std::to_string(counts.size()) + " entries for " +
                                      std::to_string(users.size()) + " users");
    }
    for (std::size_t u = 0; u < users.size(); ++u) {
        if (!x.index.emplace(users[u], u).second)
            JsonReader(text, path).failAt(x.usersAt, "user '" + users[u] + "' is listed twice");
        x.total += static_cast<std::uint64_t>(counts[u]);
    }
    // Every sample takes at least 4 bytes of text ("[0],"): a larger total is a wrong count,
    // found before anything is allocated for it.
    if (x.total == 0) JsonReader(text, path).failAt(x.countsAt, "no samples (num_samples are all 0)");
    if (x.total > text.size() / 4)
        JsonReader(text, path).failAt(x.countsAt, "num_samples add up to " + std::to_string(x.total) +
                                                      " samples, more than a file of " + std::to_string(text.size()) +
                                                      " bytes can hold");
    return x;
}

} // namespace

LeafShape probeLeaf(const std::string& path) {
    const std::string text = readWhole(path);
    const LeafIndex x = indexLeaf(text, path);
    LeafShape shape;
    shape.writers = x.users.size();
    shape.samples = x.total;
    // The first sample's shape (as readLeaf takes it), from the first user with samples.
    JsonReader in(text, path);
    in.seek(x.userData);
    if (!in.openObject("an object of users' data")) return shape;
    do {
        in.string();
        in.expect(':', "':'");
        if (in.openObject("an object {\"x\": [...], \"y\": [...]}"))
            do {
                const std::string k = in.string();
                in.expect(':', "':'");
                if (k != "x") {
                    in.skip();
                    continue;
                }
                if (!in.openArray("a list of samples")) continue;
                std::vector<float> first;
                const auto [rows, cols] = readSample(in, first, std::size_t(1) << 24);
                shape.known = true;
                if (rows > 0) {
                    shape.height = rows;
                    shape.width = cols;
                } else if (cols == 28 * 28) {
                    shape.height = shape.width = 28;
                } else {
                    shape.width = cols;
                }
                return shape;
            } while (in.more('}'));
    } while (in.more('}'));
    return shape;
}

LeafData readLeaf(const std::string& path) {
    const std::string text = readWhole(path);
    const LeafIndex x = indexLeaf(text, path);
    const std::vector<std::string>& users = x.users;
    const std::vector<std::int64_t>& counts = x.counts;
    const std::map<std::string, std::size_t>& index = x.index;
    const std::uint64_t total = x.total;
    const char* usersAt = x.usersAt;

    // Pass 2: the samples, user by user into their place (users order).
    LeafData out;
    out.writers = users;
    out.parts.resize(users.size());
    std::vector<std::vector<float>> xs(users.size());
    std::vector<std::vector<std::int64_t>> ys(users.size());
    std::vector<char> seen(users.size(), 0);
    int rows = -1, cols = -1; // the first sample's shape: every sample must have it
    std::size_t perSample = 0;
    std::int64_t maxLabel = -1;
    // From the start again, so that messages count lines from the file's start.
    JsonReader in(text, path);
    in.openObject("'{'");
    for (;;) {
        const std::string key = in.string();
        in.expect(':', "':'");
        if (key != "user_data") {
            in.skip();
            if (!in.more('}')) break;
            continue;
        }
        if (in.openObject("an object of users' data"))
            do {
                const char* userAt = in.at();
                const std::string user = in.string();
                in.expect(':', "':'");
                const auto it = index.find(user);
                if (it == index.end()) in.failAt(userAt, "user '" + user + "' has data but is not in \"users\"");
                const std::size_t u = it->second;
                if (seen[u]) in.failAt(userAt, "user '" + user + "' has data twice");
                seen[u] = 1;
                bool haveX = false, haveY = false;
                const char* objAt = in.at();
                if (in.openObject("an object {\"x\": [...], \"y\": [...]}"))
                    do {
                        const std::string k = in.string();
                        in.expect(':', "':'");
                        if (k == "x") {
                            haveX = true;
                            std::int64_t n = 0;
                            if (in.openArray("a list of samples"))
                                do {
                                    const char* sampleAt = in.at();
                                    if (n >= counts[u])
                                        in.failAt(sampleAt, "user '" + user + "' has more samples than its num_samples (" +
                                                                std::to_string(counts[u]) + ")");
                                    if (perSample == 0) {
                                        const auto [r, c] = readSample(in, xs[u], std::size_t(1) << 24);
                                        rows = r;
                                        cols = c;
                                        perSample = xs[u].size();
                                        if (static_cast<double>(perSample) * static_cast<double>(total) >
                                            static_cast<double>(kMaxIdxPixels))
                                            in.failAt(sampleAt, std::to_string(total) + " samples of " +
                                                                    std::to_string(perSample) + " values are more than " +
                                                                    std::to_string(kMaxIdxPixels) +
                                                                    " values in all (1 GiB as floats)");
                                        xs[u].reserve(static_cast<std::size_t>(counts[u]) * perSample);
                                    } else {
                                        if (xs[u].empty()) xs[u].reserve(static_cast<std::size_t>(counts[u]) * perSample);
                                        const std::size_t before = xs[u].size();
                                        const auto [r, c] = readSample(in, xs[u], perSample);
                                        if (r != rows || c != cols || xs[u].size() - before != perSample)
                                            in.failAt(sampleAt, "a sample of shape " +
                                                                    (r ? std::to_string(r) + "x" : std::string()) +
                                                                    std::to_string(c) + "; the first sample has " +
                                                                    (rows ? std::to_string(rows) + "x" : std::string()) +
                                                                    std::to_string(cols));
                                    }
                                    ++n;
                                } while (in.more(']'));
                            if (n != counts[u])
                                in.failAt(objAt, "user '" + user + "' has " + std::to_string(n) +
                                                     " samples in x, its num_samples says " + std::to_string(counts[u]));
                        } else if (k == "y") {
                            haveY = true;
                            if (in.openArray("a list of labels"))
                                do {
                                    if (static_cast<std::int64_t>(ys[u].size()) >= counts[u])
                                        in.failAt(in.at(), "user '" + user + "' has more labels than its num_samples (" +
                                                               std::to_string(counts[u]) + ")");
                                    const double v = in.number();
                                    if (v < 0 || v != std::floor(v) || v > static_cast<double>(kMaxLabel))
                                        in.fail("a label is a whole number 0.." + std::to_string(kMaxLabel) +
                                                " (LEAF data with text labels, e.g. Shakespeare's, need their "
                                                "characters mapped to numbers first)");
                                    ys[u].push_back(static_cast<std::int64_t>(v));
                                    maxLabel = std::max(maxLabel, ys[u].back());
                                } while (in.more(']'));
                            if (static_cast<std::int64_t>(ys[u].size()) != counts[u])
                                in.failAt(objAt, "user '" + user + "' has " + std::to_string(ys[u].size()) +
                                                     " labels in y, its num_samples says " + std::to_string(counts[u]));
                        } else {
                            in.skip();
                        }
                    } while (in.more('}'));
                if (!haveX || !haveY) in.failAt(objAt, "user '" + user + "' needs both \"x\" and \"y\"");
            } while (in.more('}'));
        if (!in.more('}')) break;
    }
    for (std::size_t u = 0; u < users.size(); ++u)
        if (!seen[u] && counts[u] > 0) in.failAt(usersAt, "user '" + users[u] + "' has no entry in \"user_data\"");

    Dataset& d = out.data;
    d.features.reserve(static_cast<std::size_t>(total) * perSample);
    d.labels.reserve(static_cast<std::size_t>(total));
    for (std::size_t u = 0; u < users.size(); ++u) {
        for (std::size_t k = 0; k < ys[u].size(); ++k) out.parts[u].push_back(static_cast<std::int64_t>(d.labels.size() + k));
        d.features.insert(d.features.end(), xs[u].begin(), xs[u].end());
        d.labels.insert(d.labels.end(), ys[u].begin(), ys[u].end());
        std::vector<float>().swap(xs[u]);
    }
    d.channels = 1;
    if (rows > 0) {
        d.height = rows;
        d.width = cols;
    } else if (cols == 28 * 28) { // FEMNIST's flattened 28 x 28 images
        d.height = d.width = 28;
    } else {
        d.height = 1;
        d.width = cols;
    }
    d.classes = static_cast<int>(maxLabel + 1);
    return out;
}

} // namespace fog
