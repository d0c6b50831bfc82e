#include "core/scenario/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace fog {

namespace {

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

int oneBased(int zeroBased) {
    return zeroBased >= 0 ? zeroBased + 1 : 0;
}

/// The path one level up: "a.b[2]" -> "a.b", "a.b" -> "a", "a" -> "".
std::string parentPath(const std::string& path) {
    const auto at = path.find_last_of(".[");
    return at == std::string::npos ? std::string() : path.substr(0, at);
}

} // namespace

std::string suggestName(const std::string& word, const std::vector<std::string>& candidates) {
    if (word.empty()) return {};
    std::string best;
    std::size_t bestDistance = 3;
    for (const auto& c : candidates) {
        // The edit distance is at least the difference in length, so only candidates within
        // two characters of the word's length (and short enough) need the O(n*m) distance.
        const std::size_t gap =
            c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        std::size_t d = 3;
        if (gap <= 2 && word.size() <= kMaxSuggestLength) d = editDistance(word, c);
        // A prefix either way ("band" for "bandwidth_up_mbps") is a plausible abbreviation.
        if (d > 2 && (startsWith(c, word) || startsWith(word, c))) d = 2;
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string s = suggestName(word, candidates);
    return s.empty() ? std::string() : " (did you mean '" + s + "'?)";
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string formatNumber(double v) {
    if (std::isnan(v)) return ".nan";
    if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
    // Shortest text that round-trips; plain decimals for everyday magnitudes (0.0001 rather
    // than 1e-04), exponents only for the very small and very large.
    char buf[400];
    const double a = std::fabs(v);
    const auto res = (v == 0 || (a >= 1e-5 && a < 1e16))
                         ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                         : std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

bool parseNumber(const std::string& text, double& out) {
    std::string t = text;
    bool negative = false;
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
        negative = t[0] == '-';
        t.erase(0, 1);
    }
    if (t == ".inf" || t == ".Inf" || t == ".INF") {
        out = negative ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
        return true;
    }
    if (t == ".nan" || t == ".NaN" || t == ".NAN") {
        if (text[0] == '+' || text[0] == '-') return false;
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    // from_chars ignores the locale (a GUI may run under a decimal-comma one) and rejects
    // spellings YAML would not call numbers, except "inf"/"nan", which we rule out here.
    if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) return false;
    double v = 0.0;
    const auto res = std::from_chars(t.data(), t.data() + t.size(), v);
    if (res.ec != std::errc() || res.ptr != t.data() + t.size()) return false;
    out = negative ? -v : v;
    return true;
}

std::string childPath(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string itemPath(const std::string& parent, std::size_t index) {
    return parent + "[" + std::to_string(index) + "]";
}

bool pathWithin(const std::string& path, const std::string& prefix) {
    if (prefix.empty()) return true;
    if (!startsWith(path, prefix)) return false;
    return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

// --- YamlContext -------------------------------------------------------------------------

void YamlContext::error(const std::string& path, const YAML::Mark& at, const std::string& message) {
    diagnostics_.push_back({file_, oneBased(at.line), oneBased(at.column), path, message});
}

void YamlContext::error(const std::string& path, const std::string& message) {
    const YAML::Mark* at = locate(path);
    diagnostics_.push_back(
        {file_, at ? oneBased(at->line) : 0, at ? oneBased(at->column) : 0, path, message});
}

const YAML::Mark* YamlContext::locate(const std::string& path) const {
    for (std::string p = path;; p = parentPath(p)) {
        if (auto it = marks_.find(p); it != marks_.end()) return &it->second;
        if (p.empty()) return nullptr;
    }
}

// --- scalar conversions ------------------------------------------------------------------

std::string quoted(const std::string& text) {
    std::string out = "'";
    std::size_t shown = 0, i = 0;
    for (; i < text.size() && shown < kMaxQuotedLength; ++shown) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
            continue;
        }
        // One UTF-8 character (its continuation bytes with it).
        out += text[i++];
        while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80)
            out += text[i++];
    }
    out += "'";
    if (i < text.size()) out.insert(out.size() - 1, "..."), out += " (" + std::to_string(text.size()) + " bytes)";
    return out;
}

std::string describeNode(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "nothing";
    if (n.IsSequence()) return "a list";
    if (n.IsMap()) return "a map";
    return quoted(n.Scalar());
}

namespace {

/// The scalar text, or a report that a scalar of kind `what` was expected.
bool scalarText(YamlContext& ctx, const YAML::Node& n, const std::string& path, const char* what,
                std::string& text) {
    if (!n.IsScalar()) {
        ctx.error(path, n.Mark(), std::string("must be ") + what + ", got " + describeNode(n));
        return false;
    }
    text = n.Scalar();
    return true;
}

} // namespace

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, double& out) {
    std::string text;
    if (!scalarText(ctx, n, path, "a number", text)) return false;
    // .inf and .nan read as numbers here; validateScenario refuses them wherever a value is
    // used, so that files and scenarios built in memory get the same message.
    if (!parseNumber(text, out)) {
        ctx.error(path, n.Mark(), "must be a number, got " + quoted(text));
        return false;
    }
    return true;
}

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, int& out) {
    std::string text;
    if (!scalarText(ctx, n, path, "an integer", text)) return false;
    double v = 0.0;
    // Via double, so that "1e3" and "10.0" are accepted as the integers they denote.
    if (!parseNumber(text, v) || v != std::floor(v) ||
        std::fabs(v) > static_cast<double>(std::numeric_limits<int>::max())) {
        ctx.error(path, n.Mark(), "must be an integer, got " + quoted(text));
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, bool& out) {
    std::string text;
    if (!scalarText(ctx, n, path, "true or false", text)) return false;
    // The YAML 1.1 spellings yaml-cpp also accepts.
    static const char* const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "on",   "On",   "ON"};
    static const char* const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO",    "off",   "Off",   "OFF"};
    for (const char* s : yes)
        if (text == s) {
            out = true;
            return true;
        }
    for (const char* s : no)
        if (text == s) {
            out = false;
            return true;
        }
    ctx.error(path, n.Mark(), "must be true or false, got " + quoted(text));
    return false;
}

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, std::string& out) {
    if (n.IsNull()) { // `key:` or `key: ~` reads as empty text
        out.clear();
        return true;
    }
    return scalarText(ctx, n, path, "text", out);
}

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, std::uint64_t& out) {
    std::string text;
    if (!scalarText(ctx, n, path, "a non-negative integer", text)) return false;
    std::uint64_t v = 0;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size()) {
        ctx.error(path, n.Mark(),
                  "must be an integer from 0 to 18446744073709551615, got " + quoted(text));
        return false;
    }
    out = v;
    return true;
}

bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path,
               std::vector<int>& out) {
    if (!n.IsSequence()) {
        ctx.error(path, n.Mark(), "must be a list of integers, got " + describeNode(n));
        return false;
    }
    std::vector<int> values;
    bool ok = true;
    forEachItem(ctx, n, path, [&](const YAML::Node& item, const std::string& p, std::size_t) {
        int v = 0;
        ok = readValue(ctx, item, p, v) && ok;
        values.push_back(v);
    });
    if (ok) out = std::move(values);
    return ok;
}

// --- MapReader ---------------------------------------------------------------------------

MapReader::MapReader(YamlContext& ctx, const YAML::Node& node, std::string path)
    : ctx_(ctx), path_(std::move(path)) {
    if (!node.IsDefined() || node.IsNull()) return;
    if (!node.IsMap()) {
        ctx_.error(path_, node.Mark(), "must be a map of key: value, got " + describeNode(node));
        valid_ = false;
        return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;
        if (!key.IsScalar()) {
            ctx_.error(path_, key.Mark(), "keys must be plain names, got " + describeNode(key));
            continue;
        }
        const std::string name = key.Scalar();
        // yaml-cpp keeps both copies of a repeated key; silently taking one would hide a slip.
        if (const Entry* first = find(name)) {
            ctx_.error(pathOf(name), key.Mark(),
                       "duplicate key '" + name + "' (first given on line " +
                           std::to_string(oneBased(first->keyNode.Mark().line)) + ")");
            continue;
        }
        index_.emplace(name, entries_.size());
        entries_.push_back({name, key, it->second});
        // An empty value (`key:`) has its mark at the next token, often on the next line.
        ctx_.remember(pathOf(name), it->second.IsNull() ? key.Mark() : it->second.Mark());
    }
}

MapReader::~MapReader() {
    for (const auto& e : entries_) {
        if (isKnown(e.key)) continue;
        std::string hint = didYouMean(e.key, known_);
        if (hint.empty() && !known_.empty()) hint = "; expected one of: " + joinNames(known_);
        ctx_.error(pathOf(e.key), e.keyNode.Mark(), "unknown key '" + e.key + "'" + hint);
    }
    for (const auto& [key, why] : notApplicable_)
        if (const Entry* e = find(key)) ctx_.error(pathOf(key), e->keyNode.Mark(), why);
}

const MapReader::Entry* MapReader::find(const std::string& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

void MapReader::markKnown(const std::string& key) {
    if (knownSet_.insert(key).second) known_.push_back(key);
}

bool MapReader::has(const std::string& key) {
    markKnown(key);
    return find(key) != nullptr;
}

YAML::Node MapReader::node(const std::string& key) {
    if (!has(key)) return YAML::Node(YAML::NodeType::Undefined);
    return find(key)->value;
}

bool MapReader::require(const std::string& key, const std::string& what) {
    if (has(key)) return true;
    // Located at the enclosing map, which the parent reader remembered.
    if (valid_) ctx_.error(pathOf(key), "is missing" + (what.empty() ? "" : " (" + what + ")"));
    return false;
}

void MapReader::notApplicable(const std::string& key, const std::string& why) {
    has(key);
    notApplicable_[key] = why;
}

std::vector<std::string> MapReader::remainingKeys() {
    std::vector<std::string> out;
    for (const auto& e : entries_)
        if (!isKnown(e.key)) {
            markKnown(e.key);
            out.push_back(e.key);
        }
    return out;
}

YAML::Mark MapReader::keyMark(const std::string& key) const {
    const Entry* e = find(key);
    return e ? e->keyNode.Mark() : YAML::Mark::null_mark();
}

// --- size of a tree with aliases ---------------------------------------------------------

std::size_t countExpandedValues(const YAML::Node& root, std::size_t budget, YAML::Mark& where) {
    // Iterative (a deeply nested file must not exhaust the stack); the explicit stack holds
    // at most one entry per value counted, so it is bounded by the budget too.
    std::vector<YAML::Node> stack{root};
    std::size_t count = 0;
    while (!stack.empty()) {
        const YAML::Node n = stack.back();
        stack.pop_back();
        if (++count > budget) {
            where = n.Mark();
            return count;
        }
        if (n.IsSequence()) {
            for (auto it = n.begin(); it != n.end(); ++it)
                stack.push_back(*it);
        } else if (n.IsMap()) {
            for (auto it = n.begin(); it != n.end(); ++it) {
                stack.push_back(it->first);
                stack.push_back(it->second);
            }
        }
        if (stack.size() > budget) { // one huge list: no need to hold all of it
            where = n.Mark();
            return budget + 1;
        }
    }
    return count;
}

} // namespace fog
