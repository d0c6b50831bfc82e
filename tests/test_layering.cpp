// The include graph of core/ between folders has no cycle (issue 11): util < spec < data,
// model, system < planning < policies < engine, with scenario allowed to use policies and
// analysis, sweep, seek, store, cluster above; and above the core (issue 24) the folders of
// widgets/ and app/, with widgets/figures at their bottom. A cycle is printed with the
// include lines that make it, so whoever adds one sees where.

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// One `#include "core/<to>/..."` in a file of core/<from>/.
struct IncludeEdge {
    std::string from, to;
    std::string where; ///< file:line of the include
};

/// Calls `onInclude(file, line, match)` for every line of the .h, .cpp and .inc files under
/// `dir` that `include` matches; `file` is relative to `dir`.
void scanIncludes(const std::filesystem::path& dir, const std::regex& include,
                  const std::function<void(const std::filesystem::path&, int, const std::smatch&)>& onInclude) {
    namespace fs = std::filesystem;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        const auto ext = entry.path().extension().string();
        if (ext != ".h" && ext != ".cpp" && ext != ".inc") continue;
        std::ifstream in(entry.path());
        std::string line;
        int n = 0;
        while (std::getline(in, line)) {
            ++n;
            std::smatch m;
            if (std::regex_search(line, m, include)) onInclude(fs::relative(entry.path(), dir), n, m);
        }
    }
}

/// The folder-level include edges of every .h and .cpp under `coreDir` (self edges dropped).
std::vector<IncludeEdge> scanCore(const std::filesystem::path& coreDir) {
    // A plain string: moc's preprocessor misreads a raw string holding '#include'.
    static const std::regex include("^\\s*#\\s*include\\s*\"core/([A-Za-z0-9_]+)/");
    std::vector<IncludeEdge> edges;
    scanIncludes(coreDir, include, [&](const std::filesystem::path& rel, int n, const std::smatch& m) {
        if (rel.begin() == rel.end() || std::next(rel.begin()) == rel.end()) return; // core/ itself
        const std::string from = rel.begin()->string();
        if (m[1] != from) edges.push_back({from, m[1], "core/" + rel.generic_string() + ":" + std::to_string(n)});
    });
    return edges;
}

/// The same above the core: the folders of widgets/ and app/, named "widgets/plots",
/// "app/cli", with their includes of each other and of core/ ("core"), so that a cycle
/// through both trees is found too (self edges dropped).
std::vector<IncludeEdge> scanTop(const std::filesystem::path& sourceDir) {
    static const std::regex include("^\\s*#\\s*include\\s*\"(core|widgets|app)/([A-Za-z0-9_]+)/");
    std::vector<IncludeEdge> edges;
    for (const std::string top : {"widgets", "app"})
        scanIncludes(sourceDir / top, include, [&](const std::filesystem::path& rel, int n, const std::smatch& m) {
            if (std::next(rel.begin()) == rel.end()) return; // a file of widgets/ or app/ itself
            const std::string from = top + "/" + rel.begin()->string();
            const std::string to = m[1] == "core" ? std::string("core") : m[1].str() + "/" + m[2].str();
            if (to != from) edges.push_back({from, to, top + "/" + rel.generic_string() + ":" + std::to_string(n)});
        });
    return edges;
}

/// An include of a file of widgets/ or app/ ("widgets/plots/live_plots.h"), and of a Qt
/// header (<QString>, <QtCore/QString>). Plain strings: moc's preprocessor misreads a raw
/// string holding '#include'.
const std::regex& includeAboveCore() {
    static const std::regex r("^\\s*#\\s*include\\s*[\"<]((widgets|app)/[^\">]*)[\">]");
    return r;
}
const std::regex& includeOfQt() {
    static const std::regex r("^\\s*#\\s*include\\s*<(Q[A-Za-z]*(/[A-Za-z]+)?)>");
    return r;
}

/// Every cycle between folders, each as "a -> b -> a (where; where)"; empty when none. One
/// cycle per strongly connected component is enough to act on.
std::vector<std::string> folderCycles(const std::vector<IncludeEdge>& edges) {
    std::map<std::string, std::map<std::string, std::string>> graph; // from -> to -> first where
    for (const auto& e : edges)
        graph[e.from].emplace(e.to, e.where);
    std::vector<std::string> cycles;
    std::set<std::string> done;     // fully explored
    std::vector<std::string> stack; // current DFS path
    std::set<std::string> onStack;
    std::set<std::string> reported; // folders already in a reported cycle
    std::function<void(const std::string&)> visit = [&](const std::string& v) {
        stack.push_back(v);
        onStack.insert(v);
        for (const auto& [w, where] : graph[v]) {
            if (onStack.count(w)) {
                const auto start = std::find(stack.begin(), stack.end(), w);
                bool known = false;
                for (auto it = start; it != stack.end(); ++it)
                    known = known || reported.count(*it);
                if (known) continue;
                std::string text, lines;
                for (auto it = start; it != stack.end(); ++it) {
                    const std::string& next = std::next(it) == stack.end() ? w : *std::next(it);
                    text += *it + " -> ";
                    lines += (lines.empty() ? "" : "; ") + graph[*it][next];
                    reported.insert(*it);
                }
                cycles.push_back(text + w + " (" + lines + ")");
            } else if (!done.count(w)) {
                visit(w);
            }
        }
        onStack.erase(v);
        stack.pop_back();
        done.insert(v);
    };
    for (const auto& [v, out] : graph)
        if (!done.count(v)) visit(v);
    return cycles;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines)
        out += "\n  " + l;
    return out;
}

} // namespace

class TestLayering : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void theCycleFinderFindsCycles_data() {
        QTest::addColumn<QStringList>("edges"); // "from to" pairs
        QTest::addColumn<int>("cycles");
        QTest::addColumn<QString>("mustMention");
        QTest::newRow("none") << QStringList{"engine policies", "policies spec", "engine spec"} << 0
                              << "";
        QTest::newRow("two folders") << QStringList{"engine policies", "policies engine"} << 1
                                     << "engine -> policies -> engine";
        QTest::newRow("three folders")
            << QStringList{"spec util", "data spec", "scenario data", "spec scenario"} << 1
            << "data -> spec -> scenario -> data";
        QTest::newRow("two separate")
            << QStringList{"a b", "b a", "c d", "d c", "a c"} << 2 << "c -> d -> c";
    }
    void theCycleFinderFindsCycles() {
        QFETCH(QStringList, edges);
        QFETCH(int, cycles);
        QFETCH(QString, mustMention);
        std::vector<IncludeEdge> es;
        for (const auto& e : edges) {
            const auto parts = e.split(' ');
            es.push_back({parts[0].toStdString(), parts[1].toStdString(),
                          "core/" + parts[0].toStdString() + "/x.h:1"});
        }
        const auto found = folderCycles(es);
        QCOMPARE(static_cast<int>(found.size()), cycles);
        if (!mustMention.isEmpty())
            QVERIFY2(joined(found).find(mustMention.toStdString()) != std::string::npos,
                     joined(found).c_str());
    }

    void coreHasNoCycleBetweenFolders() {
        const auto edges = scanCore(std::filesystem::path(FOG_SOURCE_DIR) / "core");
        QVERIFY2(edges.size() > 20, "found too few includes: is FOG_SOURCE_DIR right?");
        const auto cycles = folderCycles(edges);
        QVERIFY2(cycles.empty(),
                 ("include cycles between folders of core/:" + joined(cycles)).c_str());
    }

    /// The core is the bottom of the whole tree: no file of core/ includes widgets/ or app/,
    /// nor a Qt header (the CLI, the Python module and the fuzz harnesses link it without Qt).
    void coreIncludesNoWidgetsAppOrQt() {
        std::vector<std::string> bad;
        int files = 0;
        const auto core = std::filesystem::path(FOG_SOURCE_DIR) / "core";
        for (const std::regex* rule : {&includeAboveCore(), &includeOfQt()})
            scanIncludes(core, *rule, [&](const std::filesystem::path& rel, int n, const std::smatch& m) {
                bad.push_back("core/" + rel.generic_string() + ":" + std::to_string(n) + " includes " + m[1].str());
            });
        for (const auto& e : std::filesystem::recursive_directory_iterator(core))
            files += e.is_regular_file() && (e.path().extension() == ".h" || e.path().extension() == ".cpp");
        QVERIFY2(files > 100, "found too few files: is FOG_SOURCE_DIR right?");
        QVERIFY2(bad.empty(), ("core/ must not include widgets/, app/ or Qt:" + joined(bad)).c_str());
    }

    /// The scan above finds what it must: an include of each kind in a scratch tree.
    void theCoreScanSeesWidgetsAppAndQt() {
        const auto dir = std::filesystem::temp_directory_path() / ("fog_layering_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir / "engine");
        {
            std::ofstream(dir / "engine" / "x.cpp") << "#include \"widgets/plots/live_plots.h\"\n"
                                                     << "  #  include <app/gui/theme.h>\n"
                                                     << "#include <QWidget>\n#include <QtCore/QString>\n"
                                                     << "#include <vector>\n#include \"core/util/job.h\"\n";
        }
        int found = 0;
        for (const std::regex* rule : {&includeAboveCore(), &includeOfQt()})
            scanIncludes(dir, *rule, [&](const std::filesystem::path&, int, const std::smatch&) { ++found; });
        std::filesystem::remove_all(dir);
        QCOMPARE(found, 4);
    }

    void widgetsAndAppHaveNoCycleBetweenFolders() {
        const auto edges = scanTop(std::filesystem::path(FOG_SOURCE_DIR));
        QVERIFY2(edges.size() > 20, "found too few includes: is FOG_SOURCE_DIR right?");
        const auto cycles = folderCycles(edges);
        QVERIFY2(cycles.empty(),
                 ("include cycles between folders of widgets/ and app/:" + joined(cycles)).c_str());
    }

    /// Above the core: the figures at the bottom of widgets/ (the exporters use them
    /// offscreen), nothing of widgets/ including app/, and the CLI seeing the figures only
    /// through its module's interface (it links no Qt Widgets, tests/test_cli_links.cpp).
    void topFolderRules_data() {
        QTest::addColumn<QString>("from");      // a folder, or a prefix ending in '/'
        QTest::addColumn<QStringList>("allowed"); // what it may include (prefixes ending in '/' match folders)
        QTest::newRow("figures: the core only") << "widgets/figures" << QStringList{"core"};
        QTest::newRow("widgets never include app/") << "widgets/" << QStringList{"core", "widgets/"};
        QTest::newRow("the CLI: the core and itself") << "app/cli" << QStringList{"core"};
        QTest::newRow("exporters: figures, not widgets")
            << "app/export" << QStringList{"core", "widgets/figures"};
        QTest::newRow("the figures module: the CLI's interface, exporters, figures")
            << "app/figures" << QStringList{"core", "app/cli", "app/export", "widgets/figures"};
    }
    void topFolderRules() {
        QFETCH(QString, from);
        QFETCH(QStringList, allowed);
        const auto matches = [](const std::string& folder, const QString& rule) {
            return rule.endsWith('/') ? QString::fromStdString(folder).startsWith(rule)
                                      : QString::fromStdString(folder) == rule;
        };
        std::vector<std::string> bad;
        int seen = 0;
        for (const auto& e : scanTop(std::filesystem::path(FOG_SOURCE_DIR))) {
            if (!matches(e.from, from)) continue;
            ++seen;
            if (std::none_of(allowed.begin(), allowed.end(), [&](const QString& a) { return matches(e.to, a); }))
                bad.push_back(e.where + " includes " + e.to + "/");
        }
        QVERIFY2(seen > 0, qPrintable(from + " includes nothing: is the folder still there?"));
        QVERIFY2(bad.empty(), (from.toStdString() + " must not include these:" + joined(bad)).c_str());
    }

    /// The rules the layering rests on, by name (a cycle check alone would allow e.g.
    /// policies -> engine while nothing includes policies from engine).
    void folderRules_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QStringList>("forbidden");
        const QStringList above = {"engine", "scenario", "analysis", "sweep",
                                   "seek",   "store",    "cluster"};
        QTest::newRow("policies see a context, not the engine") << "policies" << above;
        QTest::newRow("planning below policies")
            << "planning" << (QStringList(above) << "policies");
        QTest::newRow("spec is plain data") << "spec"
                                            << (QStringList(above) << "policies"
                                                                   << "planning"
                                                                   << "data"
                                                                   << "model"
                                                                   << "system");
        QTest::newRow("util at the bottom") << "util"
                                            << (QStringList(above) << "policies"
                                                                   << "planning"
                                                                   << "data"
                                                                   << "model"
                                                                   << "system"
                                                                   << "spec");
    }
    void folderRules() {
        QFETCH(QString, from);
        QFETCH(QStringList, forbidden);
        std::vector<std::string> bad;
        for (const auto& e : scanCore(std::filesystem::path(FOG_SOURCE_DIR) / "core"))
            if (e.from == from.toStdString() && forbidden.contains(QString::fromStdString(e.to)))
                bad.push_back(e.where + " includes core/" + e.to + "/");
        QVERIFY2(bad.empty(),
                 ("core/" + from.toStdString() + " must not include these:" + joined(bad)).c_str());
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
