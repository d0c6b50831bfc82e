// Timed events and trace files in the scenario (issue 13, the file side): every event kind
// reads, validates and round-trips; bad input is located at file:line:column; trace files
// load, resolve against the scenario's folder and report bad rows at file:line; the example
// traces and the preset load; `add` beyond the node limit or to a node is refused (the engine
// side of add: tests/test_add_devices.cpp);
// an event built in code (an intervention) is checked like a file's. What the engine does
// with them: tests/test_timed_events.cpp.

#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace fog;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";

/// A server, an edge aggregator with 10 phones, a laptop, and an explicit link.
const std::string kBase = R"(name: events
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: edge-1, tier: edge, role: aggregator, parent: server, link: {bandwidth_up_mbps: 100}}
    - {id: laptop, role: trainer, parent: server}
  groups:
    - {id: phones, count: 10, role: trainer, parent: edge-1}
  links:
    - {from: edge-1, to: laptop, bandwidth_up_mbps: 10}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
sync: {policy: fedavg}
selection: {policy: random-k, k: 4}
stop: {rounds: 3}
)";

void writeText(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

/// Every problem of loading `yaml` (empty when it loads).
std::vector<Diagnostic> problems(const std::string& yaml, const std::string& label = "s.yaml") {
    try {
        loadScenarioText(yaml, label);
    } catch (const ScenarioError& e) {
        return e.diagnostics;
    }
    return {};
}

QString joined(const std::vector<Diagnostic>& d) {
    QString out;
    for (const auto& x : d)
        out += QString::fromStdString(x.format()) + "\n";
    return out;
}

} // namespace

class TestEvents : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindReadsAndRoundTrips() {
        const std::string yaml = kBase + R"(events:
  - at: 600
    link: {id: edge-1, bandwidth_up_mbps: 2}
  - at: 30
    link: {from: edge-1, to: laptop, latency_ms: 50}
  - when: {round: 5}
    node: {id: phones-3, price_per_hour: 0.2, throughput: 50}
  - when: {accuracy: 0.8}
    offline: {id: phones, fraction: 0.5}
  - when: {cost: 2.5}
    online: {id: laptop}
  - at: 900
    remove: {group: phones, count: 4}
  - at: 900
    remove: {group: phones, count: 2}
  - at: 1200
    policy: {selection.k: 6}
  - at: 1300
    policy: {deadline_s: 30}
)";
        Scenario s;
        try {
            s = loadScenarioText(yaml, "s.yaml");
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        const auto& l = s.events.list;
        QCOMPARE(l.size(), std::size_t(9));
        // `at` events by time (stable for the two at 900), then `when` events in file order.
        QCOMPARE(l[0].trigger.value, 30.0);
        QCOMPARE(l[0].link, 0);
        QCOMPARE(l[0].linkTo, std::string("laptop"));
        QCOMPARE(*l[0].latencyMs, 50.0);
        QVERIFY(!l[0].bandwidthUpMbps);
        QCOMPARE(l[1].action, TimedEvent::Action::Link);
        QCOMPARE(l[1].entry, s.topology.find("edge-1"));
        QCOMPARE(*l[1].bandwidthUpMbps, 2.0);
        QCOMPARE(l[2].action, TimedEvent::Action::Remove);
        QCOMPARE(l[2].count, 4);
        QCOMPARE(l[3].action, TimedEvent::Action::Remove);
        QCOMPARE(l[3].count, 2);
        QCOMPARE(l[4].policyOf, std::string("selection"));
        QCOMPARE(l[4].policyParam, std::string("k"));
        QCOMPARE(l[4].policyValue, 6.0);
        QCOMPARE(l[5].policyOf, std::string("sync"));
        QCOMPARE(l[5].policyParam, std::string("deadline_s"));
        QCOMPARE(l[6].trigger.kind, EventTrigger::Kind::Round);
        QCOMPARE(l[6].entry, s.topology.find("phones"));
        QCOMPARE(l[6].member, 3LL);
        QCOMPARE(*l[6].pricePerHour, 0.2);
        QCOMPARE(*l[6].throughput, 50.0);
        QCOMPARE(l[7].trigger.kind, EventTrigger::Kind::Accuracy);
        QCOMPARE(*l[7].fraction, 0.5);
        QCOMPARE(l[8].trigger.kind, EventTrigger::Kind::Cost);
        QCOMPARE(l[8].action, TimedEvent::Action::Online);
        QVERIFY(!l[8].fraction);
        // Every event has its place in the file.
        QCOMPARE(l[6].line, 21);
        QCOMPARE(l[6].column, 5);

        // Written, read back and written again: the same bytes, the same events.
        const std::string saved = saveScenarioText(s);
        QVERIFY(saved.find("events:") != std::string::npos);
        const Scenario back = loadScenarioText(saved, "saved.yaml");
        QCOMPARE(saveScenarioText(back), saved);
        QCOMPARE(back.events.list.size(), l.size());
        for (std::size_t i = 0; i < l.size(); ++i) {
            QCOMPARE(back.events.list[i].action, l[i].action);
            QCOMPARE(back.events.list[i].trigger.value, l[i].trigger.value);
            QCOMPARE(back.events.list[i].target, l[i].target);
        }
        // A scenario without events writes no events key (files save as before).
        QVERIFY(saveScenarioText(loadScenarioText(kBase)).find("\nevents:") == std::string::npos);
    }

    void nestedGroupMembers() {
        const std::string yaml = R"(topology:
  nodes:
    - {id: server, role: aggregator}
  groups:
    - {id: site, count: 2, role: aggregator, parent: server}
    - {id: phone, count: 3, role: trainer, parent: site}
data: {dataset: none}
model: {kind: none}
events:
  - at: 1
    offline: {id: phone-1-2}
  - at: 2
    offline: {id: phone-2-0}
)";
        const auto d = problems(yaml);
        QCOMPARE(d.size(), std::size_t(1));
        QVERIFY2(d[0].format().find("s.yaml:13:") == 0, d[0].format().c_str());
        QVERIFY(d[0].message.find("not a member of group 'phone'") != std::string::npos);
        const Scenario s = loadScenarioText(yaml.substr(0, yaml.rfind("  - at: 2")));
        QCOMPARE(s.events.list[0].member, 5LL); // phone-1-2: second site, third phone
    }

    void badEvents_data() {
        QTest::addColumn<QString>("events");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("says");
        const int e = 17; // kBase has 15 lines: `events:` is line 16
        QTest::newRow("negative time") << "  - at: -5\n    online: {id: laptop}\n" << e << 9 << "must be >= 0";
        QTest::newRow("no trigger") << "  - online: {id: laptop}\n" << e << 5 << "needs a trigger";
        QTest::newRow("two triggers") << "  - at: 1\n    when: {round: 2}\n    online: {id: laptop}\n"
                                      << e + 1 << 5 << "one trigger";
        QTest::newRow("round 0") << "  - when: {round: 0}\n    online: {id: laptop}\n" << e << 19 << ">= 1";
        QTest::newRow("accuracy > 1") << "  - when: {accuracy: 80}\n    online: {id: laptop}\n" << e << 22 << "(0, 1]";
        QTest::newRow("unknown metric") << "  - when: {time: 3}\n    online: {id: laptop}\n" << e << 12 << "'time'";
        QTest::newRow("no action") << "  - at: 1\n" << e << 5 << "needs one action";
        QTest::newRow("misspelt action") << "  - at: 1\n    ofline: {id: laptop}\n" << e + 1 << 5 << "did you mean 'offline'";
        QTest::newRow("two actions") << "  - at: 1\n    online: {id: laptop}\n    offline: {id: laptop}\n"
                                     << e + 1 << 5 << "one action";
        QTest::newRow("unknown id") << "  - at: 1\n    offline: {id: lapto}\n" << e + 1 << 19 << "did you mean 'laptop'";
        QTest::newRow("member out of range") << "  - at: 1\n    offline: {id: phones-10}\n" << e + 1 << 19
                                             << "phones-0 .. phones-9";
        QTest::newRow("fraction > 1") << "  - at: 1\n    offline: {id: phones, fraction: 1.5}\n" << e + 1 << 37 << "[0, 1]";
        QTest::newRow("fraction of a node") << "  - at: 1\n    offline: {id: laptop, fraction: 0.5}\n" << e + 1 << 27
                                            << "only for a group";
        QTest::newRow("aggregator offline") << "  - at: 1\n    offline: {id: edge-1}\n" << e + 1 << 19 << "does not train";
        QTest::newRow("negative bandwidth") << "  - at: 1\n    link: {id: edge-1, bandwidth_up_mbps: -2}\n" << e + 1
                                            << 43 << "must be > 0";
        QTest::newRow("link changes nothing") << "  - at: 1\n    link: {id: edge-1}\n" << e + 1 << 11 << "changes nothing";
        QTest::newRow("root has no uplink") << "  - at: 1\n    link: {id: server, latency_ms: 3}\n" << e + 1 << 16
                                            << "no uplink";
        QTest::newRow("no such link") << "  - at: 1\n    link: {from: laptop, to: edge-1, latency_ms: 3}\n" << e + 1 << 30
                                      << "no link from 'laptop' to 'edge-1'";
        QTest::newRow("negative price") << "  - at: 1\n    node: {id: laptop, price_per_hour: -1}\n" << e + 1 << 40
                                        << "must be in [0, 1000000], got -1";
        QTest::newRow("unknown node key") << "  - at: 1\n    node: {id: laptop, throughput: 5, prize: 2}\n" << e + 1 << 39
                                          << "prize";
        QTest::newRow("add to a node") << "  - at: 1\n    add: {group: laptop, count: 2}\n" << e + 1 << 18 << "not a group";
        QTest::newRow("remove too many") << "  - at: 1\n    remove: {group: phones, count: 11}\n" << e + 1 << 36
                                         << "has 10 members";
        QTest::newRow("add zero") << "  - at: 1\n    add: {group: phones, count: 0}\n" << e + 1 << 33 << ">= 1";
        QTest::newRow("add beyond the node limit") << "  - at: 1\n    add: {group: phones, count: 1999999}\n" << e + 1 << 33
                                                   << "the scenario would hold 2000012 nodes with the devices its add events bring";
        QTest::newRow("link that does not exist") << "  - at: 1\n    link: {id: phones, bandwidth_up_mbps: 3}\n" << e + 1
                                                  << 16 << "has no link to its parent";
        QTest::newRow("after_event with when") << "  - when: {round: 2}\n    after_event: 3\n    online: {id: laptop}\n"
                                               << e + 1 << 5 << "goes with at:";
        QTest::newRow("negative after_event") << "  - at: 2\n    after_event: -1\n    online: {id: laptop}\n" << e + 1 << 18
                                              << "must be an integer >= 0";
        QTest::newRow("unknown policy key") << "  - at: 1\n    policy: {kk: 3}\n" << e + 1 << 14 << "parameters: sync.deadline_s, selection.k";
        QTest::newRow("misspelt policy key") << "  - at: 1\n    policy: {selection.kk: 3}\n" << e + 1 << 14
                                             << "did you mean 'selection.k'";
        QTest::newRow("policy value out of bounds") << "  - at: 1\n    policy: {selection.k: 0}\n" << e + 1 << 27 << "must be";
        QTest::newRow("policy two keys") << "  - at: 1\n    policy: {selection.k: 3, deadline_s: 2}\n" << e + 1 << 13
                                         << "exactly one";
        QTest::newRow("not a list") << "  at: 1\n" << e << 3 << "must be a list";
    }
    void badEvents() {
        QFETCH(QString, events);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, says);
        const auto d = problems(kBase + "events:\n" + events.toStdString());
        QVERIFY2(!d.empty(), "loaded");
        const std::string want = "s.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ":";
        bool found = false;
        for (const auto& x : d)
            found = found || (x.format().rfind(want, 0) == 0 && x.message.find(says.toStdString()) != std::string::npos);
        QVERIFY2(found, qPrintable("want " + QString::fromStdString(want) + " ... " + says + ", got:\n" + joined(d)));
    }

    void badTraceRows_data() {
        QTest::addColumn<QString>("csv");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << "" << 0 << 0 << "is empty";
        QTest::newRow("only comments") << "# nothing\n\n" << 0 << 0 << "is empty";
        QTest::newRow("header only") << "time_s,value\n" << 1 << 0 << "no rows";
        QTest::newRow("bad header") << "t,value\n0,1\n" << 1 << 1 << "is not a trace: its first line must be the header time_s";
        QTest::newRow("no value column") << "time_s\n0\n" << 1 << 0 << "no value column";
        QTest::newRow("duplicate column") << "time_s,a,a\n0,1,1\n" << 1 << 10 << "appears twice";
        QTest::newRow("non-number") << "time_s,value\n0,1\n60,abc\n" << 3 << 4 << "must be a finite number";
        QTest::newRow("negative value") << "# c\ntime_s,value\n0,1\n60,-2\n" << 4 << 4 << "must be >= 0";
        QTest::newRow("negative time") << "time_s,value\n-1,1\n" << 2 << 1 << "time_s must be >= 0";
        QTest::newRow("time goes back") << "time_s,value\n0,1\n60,1\n30,1\n" << 4 << 1 << "must increase";
        QTest::newRow("time repeats") << "time_s,value\n0,1\n0,1\n" << 3 << 1 << "must increase";
        QTest::newRow("short row") << "time_s,a,b\n0,1\n" << 2 << 0 << "has 2 fields";
        QTest::newRow("infinite") << "time_s,value\n0,.inf\n" << 2 << 3 << "finite";
    }
    void badTraceRows() {
        QFETCH(QString, csv);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, says);
        try {
            parseTraceText(csv.toStdString(), "t.csv");
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            const Diagnostic& d = e.diagnostics.front();
            QVERIFY2(d.file == "t.csv" && d.line == line && d.column == column &&
                         d.message.find(says.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    void tracesResolveAgainstTheScenarioFolder() {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        writeText(root + "/study/traces/price.csv", "time_s,value\n0,0.3\n3600,1.2\n");
        writeText(root + "/study/traces/wan.csv", "# Mbit/s\ntime_s,value\n0,20\n60,2.5\n");
        std::string phones = "time_s";
        std::string row0 = "0", row1 = "600";
        for (int k = 0; k < 10; ++k) {
            phones += ",phones-" + std::to_string(k);
            row0 += ",1";
            row1 += k < 4 ? ",0" : ",1";
        }
        writeText(root + "/study/traces/phones.csv", phones + "\n" + row0 + "\n" + row1 + "\n");
        std::string yaml = kBase;
        yaml.replace(yaml.find("{id: phones, count: 10, role: trainer, parent: edge-1}"),
                     std::string("{id: phones, count: 10, role: trainer, parent: edge-1}").size(),
                     "{id: phones, count: 10, role: trainer, parent: edge-1, price_trace: traces/price.csv, "
                     "bid_usd_per_hour: 0.5, availability: {kind: trace, file: traces/phones.csv}, "
                     "link: {bandwidth_up_mbps: 20, trace: traces/wan.csv}}");
        const std::string file = root + "/study/s.yaml";
        writeText(file, yaml);
        Scenario s;
        try {
            s = loadScenarioFile(file); // from the test's working directory, not the study's
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(s.events.traces.size(), std::size_t(3));
        const TraceTable& price = *s.events.traces.at("traces/price.csv");
        QCOMPARE(price.columns.size(), std::size_t(1));
        QCOMPARE(price.columns[0].value, (std::vector<double>{0.3, 1.2}));
        QCOMPARE(price.columns[0].timeS, (std::vector<double>{0, 3600}));
        const TraceTable& avail = *s.events.traces.at("traces/phones.csv");
        QCOMPARE(avail.columns.size(), std::size_t(10));
        QCOMPARE(avail.column("phones-3")->value, (std::vector<double>{1, 0}));
        QCOMPARE(avail.column("phones-7")->value, (std::vector<double>{1, 1}));
        QCOMPARE(s.events.traces.at("traces/wan.csv")->columns[0].line, (std::vector<int>{3, 4}));
        const NodeSpec& g = s.topology.nodes[static_cast<std::size_t>(s.topology.find("phones"))];
        QCOMPARE(g.bidUsdPerHour, 0.5);

        // The references are what is saved, and the saved file reads back to the same bytes.
        const std::string saved = saveScenarioText(s);
        QVERIFY(saved.find("file: traces/phones.csv") != std::string::npos);
        QVERIFY(saved.find("offline") == std::string::npos);
        QVERIFY(saved.find("price_trace: traces/price.csv") != std::string::npos);
        QVERIFY(saved.find("trace: traces/wan.csv") != std::string::npos);
        writeText(root + "/study/saved.yaml", saved);
        QCOMPARE(saveScenarioText(loadScenarioFile(root + "/study/saved.yaml")), saved);

        // Loaded from text (no folder), the same relative paths are not found, and say so at
        // the reference.
        const auto d = problems(yaml);
        QVERIFY(!d.empty());
        QVERIFY2(d[0].format().rfind("s.yaml:8:", 0) == 0 && d[0].message.find("cannot open") != std::string::npos,
                 qPrintable(joined(d)));

        // One file per member through a {member} pattern.
        for (int k = 0; k < 10; ++k)
            writeText(root + "/study/traces/each/phones-" + std::to_string(k) + ".csv",
                      "time_s,value\n0,1\n" + std::to_string(100 + k) + ",0\n");
        std::string each = yaml;
        each.replace(each.find("traces/phones.csv"), std::string("traces/phones.csv").size(),
                     "\"traces/each/{member}.csv\""); // quoted: braces inside a {...} map
        writeText(root + "/study/each.yaml", each);
        const Scenario e = loadScenarioFile(root + "/study/each.yaml");
        const TraceTable& per = *e.events.traces.at("traces/each/{member}.csv");
        QCOMPARE(per.columns.size(), std::size_t(10));
        QCOMPARE(per.column("phones-9")->timeS, (std::vector<double>{0, 109}));
        QVERIFY(saveScenarioText(e).find("traces/each/{member}.csv") != std::string::npos);

        // As a run stores it (absolute references), the text loads from anywhere, with the
        // same series, and saves back to itself.
        for (const Scenario* from : std::vector<const Scenario*>{&s, &e}) {
            Scenario stored = *from;
            makeTracePathsAbsolute(stored, root + "/study");
            const std::string text = saveScenarioText(stored);
            QVERIFY2(text.find(root + "/study/traces/") != std::string::npos, text.c_str());
            Scenario back;
            try {
                back = loadScenarioText(text, "<stored>");
            } catch (const ScenarioError& err) {
                QFAIL(err.what());
            }
            QCOMPARE(saveScenarioText(back), text);
            QCOMPARE(back.events.traces.size(), std::size_t(3));
        }
    }

    void traceProblemsInTheScenario_data() {
        QTest::addColumn<QString>("csv");
        QTest::addColumn<QString>("replace");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("says");
        QTest::newRow("missing member columns") << "time_s,phones-0,phones-1\n0,1,1\n"
                                                << "availability: {kind: trace, file: t.csv}"
                                                << "t.csv:1:" << "no column for 8 member(s)";
        QTest::newRow("unknown member column") << "time_s,value,phones-x\n0,1,1\n"
                                               << "availability: {kind: trace, file: t.csv}"
                                               << "t.csv:1:" << "either one value column";
        QTest::newRow("availability not 0/1") << "time_s,value\n0,1\n60,1.5\n"
                                              << "availability: {kind: trace, file: t.csv}"
                                              << "t.csv:3:" << "share online must be in [0, 1]";
        QTest::newRow("zero bandwidth") << "time_s,value\n0,10\n60,0\n"
                                        << "link: {trace: t.csv}" << "t.csv:3:" << "must be > 0 Mbit/s";
        QTest::newRow("bid without price trace") << "time_s,value\n0,1\n" << "bid_usd_per_hour: 0.4"
                                                 << "s.yaml:" << "needs a price_trace";
        QTest::newRow("missing file") << "time_s,value\n0,1\n" << "price_trace: nope.csv" << "s.yaml:8:"
                                      << "cannot open";
        QTest::newRow("bad row") << "time_s,value\n0,1\n60,x\n" << "price_trace: t.csv" << "t.csv:3:4:"
                                 << "must be a finite number";
        QTest::newRow("trace on a markov node") << "time_s,value\n0,1\n"
                                                << "availability: {kind: markov, file: t.csv}" << "s.yaml:8:"
                                                << "only used with kind: trace";
    }
    void traceProblemsInTheScenario() {
        QFETCH(QString, csv);
        QFETCH(QString, replace);
        QFETCH(QString, where);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        writeText(root + "/t.csv", csv.toStdString());
        std::string yaml = kBase;
        const std::string from = "parent: edge-1}";
        yaml.replace(yaml.find(from), from.size(), "parent: edge-1, " + replace.toStdString() + "}");
        writeText(root + "/s.yaml", yaml);
        try {
            loadScenarioFile(root + "/s.yaml");
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            bool found = false;
            for (const auto& d : e.diagnostics) {
                const std::string f = d.format();
                const std::string rel = f.substr(f.rfind('/', f.find(':')) + 1);
                found = found || (rel.rfind(where.toStdString(), 0) == 0 && d.message.find(says.toStdString()) != std::string::npos);
            }
            QVERIFY2(found, e.what());
        }
    }

    void examplePresetAndTracesLoad() {
        Scenario s;
        try {
            s = loadScenarioFile(kPresets + "spot-price-bid.yaml");
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(s.events.traces.size(), std::size_t(3));
        const TraceTable& phones = *s.events.traces.at("traces/phone-availability.csv");
        QCOMPARE(phones.columns.size(), std::size_t(20));
        QCOMPARE(phones.columns[0].timeS.size(), std::size_t(96)); // 24 h in 15-minute slots
        QCOMPARE(phones.columns[0].timeS.back(), 86400.0 - 900);
        const TraceTable& spot = *s.events.traces.at("traces/spot-price.csv");
        QCOMPARE(spot.columns[0].value.size(), std::size_t(288));
        double top = 0.0;
        for (double v : spot.columns[0].value)
            top = std::max(top, v);
        QVERIFY(top > 0.5); // the spikes cross the bid
        QCOMPARE(s.events.traces.at("traces/wan-bandwidth.csv")->columns[0].value.size(), std::size_t(288));
        QCOMPARE(s.events.list.size(), std::size_t(2));
        // The saved form reads back to the same bytes.
        const std::string saved = saveScenarioText(s);
        QTemporaryDir dir;
        const std::string copy = dir.path().toStdString() + "/spot.yaml";
        writeText(copy, saved);
        std::filesystem::copy(kPresets + "traces", dir.path().toStdString() + "/traces");
        QCOMPARE(saveScenarioText(loadScenarioFile(copy)), saved);
    }

    void commandLineEvents_data() {
        QTest::addColumn<QString>("arg");
        QTest::addColumn<QString>("yaml");
        QTest::newRow("link up") << "at 600: link edge-1.up=2" << "at: 600\n    link: {id: edge-1, bandwidth_up_mbps: 2}";
        QTest::newRow("link several") << "at 60: link edge-1 up=2 down=4, latency=30"
                                      << "at: 60\n    link: {id: edge-1, bandwidth_up_mbps: 2, bandwidth_down_mbps: 4, latency_ms: 30}";
        QTest::newRow("explicit link") << "at 5: link edge-1 to=laptop latency=9"
                                       << "at: 5\n    link: {from: edge-1, to: laptop, latency_ms: 9}";
        QTest::newRow("node price") << "when round>=5: node phones-2 price=0.9"
                                    << "when: {round: 5}\n    node: {id: phones-2, price_per_hour: 0.9}";
        QTest::newRow("fraction offline") << "accuracy=0.8: offline phones fraction=0.5"
                                          << "when: {accuracy: 0.8}\n    offline: {id: phones, fraction: 0.5}";
        QTest::newRow("remove") << "when cost >= 2: remove phones count=2"
                                << "when: {cost: 2}\n    remove: {group: phones, count: 2}";
        QTest::newRow("policy") << "at 120: policy selection.k=6" << "at: 120\n    policy: {selection.k: 6}";
    }
    void commandLineEvents() {
        QFETCH(QString, arg);
        QFETCH(QString, yaml);
        Scenario cli = loadScenarioText(kBase);
        try {
            addEventArgument(cli, arg.toStdString());
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        const Scenario file = loadScenarioText(kBase + "events:\n  - " + yaml.toStdString() + "\n");
        QCOMPARE(saveScenarioText(cli), saveScenarioText(file));
    }

    void badCommandLineEvents_data() {
        QTest::addColumn<QString>("arg");
        QTest::addColumn<QString>("says");
        QTest::newRow("no colon") << "at 600 link edge-1.up=2" << "no ':'";
        QTest::newRow("bad trigger") << "after 600: link edge-1.up=2" << "unknown trigger";
        QTest::newRow("bad action") << "at 600: lnk edge-1.up=2" << "did you mean 'link'";
        QTest::newRow("unknown id") << "at 600: link edge-9.up=2" << "'edge-9' is not a node";
        QTest::newRow("bad value") << "at 600: link edge-1.up=fast" << "must be a number";
        QTest::newRow("negative time") << "at -1: online laptop" << "must be >= 0";
        QTest::newRow("unknown key") << "at 1: node laptop speed=3" << "speed";
        QTest::newRow("not key=value") << "at 1: node laptop 3" << "expected key=value";
        QTest::newRow("add to a node") << "at 60: add laptop 3" << "'laptop' is not a group";
    }
    void badCommandLineEvents() {
        QFETCH(QString, arg);
        QFETCH(QString, says);
        Scenario s = loadScenarioText(kBase);
        try {
            addEventArgument(s, arg.toStdString());
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QVERIFY2(std::string(e.what()).rfind("--event", 0) == 0 && std::string(e.what()).find(says.toStdString()) != std::string::npos,
                     e.what());
        }
        QVERIFY(s.events.list.empty());
    }

    void afterEventRoundTrips() {
        // A recorded intervention: `after_event` is read, written and read back unchanged.
        const std::string yaml = kBase + "events:\n  - at: 12.5\n    after_event: 40\n    offline: {id: phones-2}\n";
        const Scenario s = loadScenarioText(yaml, "s.yaml");
        QCOMPARE(s.events.list.size(), std::size_t(1));
        QCOMPARE(s.events.list[0].afterEvent, 40LL);
        const std::string saved = saveScenarioText(s);
        QVERIFY2(saved.find("after_event: 40") != std::string::npos, saved.c_str());
        QCOMPARE(loadScenarioText(saved, "saved.yaml").events.list[0].afterEvent, 40LL);
    }

    void interventionsAreCheckedLikeFileEvents() {
        const Scenario s = loadScenarioText(kBase);
        TimedEvent e;
        e.action = TimedEvent::Action::Offline;
        e.target = "phones-7";
        e.trigger.value = 30;
        e.afterEvent = 12;
        QCOMPARE(checkEvent(s, e), std::string());
        QCOMPARE(e.entry, s.topology.find("phones"));
        QCOMPARE(e.member, 7LL);
        QCOMPARE(e.afterEvent, 12LL);

        TimedEvent bad;
        bad.action = TimedEvent::Action::Offline;
        bad.target = "phones-12";
        QVERIFY(checkEvent(s, bad).find("phones-0 .. phones-9") != std::string::npos);
        TimedEvent server;
        server.action = TimedEvent::Action::Offline;
        server.target = "edge-1";
        QVERIFY(checkEvent(s, server).find("does not train") != std::string::npos);
        TimedEvent policy;
        policy.action = TimedEvent::Action::Policy;
        policy.policyOf = "selection";
        policy.policyParam = "k";
        policy.policyValue = 2;
        QCOMPARE(checkEvent(s, policy), std::string());
        QCOMPARE(policy.policyKey, std::string("selection.k"));
    }

    void timedPolicyChangesOnlyLiveParameters() {
        // oort's parameters feed its state when it is built: a timed change is refused.
        std::string yaml = kBase;
        yaml.replace(yaml.find("{policy: random-k, k: 4}"), 24, "{policy: oort, k: 4}");
        const auto d = problems(yaml + "events:\n  - at: 5\n    policy: {selection.alpha: 3}\n");
        QVERIFY(!d.empty());
        QVERIFY2(d[0].message.find("is read once when the run starts") != std::string::npos, qPrintable(joined(d)));
        QVERIFY2(d[0].message.find("may change during a run: sync.deadline_s") != std::string::npos, qPrintable(joined(d)));
    }

    void cliValidatesAndRuns() {
        QProcess validate;
        validate.start(FOG_CLI, {"validate", QString::fromStdString(kPresets + "spot-price-bid.yaml")});
        QVERIFY(validate.waitForFinished(30000));
        QCOMPARE(validate.exitCode(), 0);
        QProcess add;
        add.start(FOG_CLI, {"run", "--no-store", QString::fromStdString(std::string(FOG_TEST_DATA) + "/scenarios/minimal.yaml"),
                            "--event", "at 0.015: offline worker"});
        QVERIFY(add.waitForFinished(30000));
        // Its rounds take 0.01 s; the only trainer leaves for good in round 2: the run ends
        // with its reason, not a hang.
        const QString out = add.readAllStandardOutput() + add.readAllStandardError();
        QVERIFY2(out.contains("nothing left to run") || out.contains("no progress"), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestEvents)
#include "test_events.moc"
