// What is reproduced where (docs/reproducibility.md, core/util/numerics.h,
// core/analysis/reproduction.h): the kernels a process trains with are pinned and recorded
// with every run; a re-run or fork of a run made with another kernel set (here: made by a
// fogstudio-cli started with ATEN_CPU_CAPABILITY=default OPENBLAS_CORETYPE=Prescott, as
// another CPU would) says so and compares by the rule (clock identical, training values
// within the tolerance) instead of refusing; the same kernels reproduce bit for bit; a clock
// value or a training value beyond the tolerance is still a difference.

#include "core/analysis/reproduction.h"
#include "core/store/run_store.h"
#include "core/store/sqlite_db.h"
#include "core/util/numerics.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace fog;

namespace {

// FedAvg of a small MLP on 1000 Fashion-MNIST samples: short, real training, every decision
// made by the clock (random-k selection), so only the training values may differ.
const char* kYaml = R"(schema_version: 1
name: reproducibility test
seed: 7
topology:
  default_link: {bandwidth_up_mbps: 20, bandwidth_down_mbps: 50, latency_ms: 30, price_per_gb: 0.01}
  nodes:
    - {id: cloud, tier: cloud, role: aggregator, price_per_hour: 0.4}
  groups:
    - id: phone
      count: 5
      tier: device
      role: trainer
      parent: cloud
      compute: {throughput: {min: 40, max: 160}, noise: {kind: exponential}}
data:
  dataset: fashion-mnist
  max_train_samples: 1000
  max_test_samples: 300
model: {kind: mlp, hidden: [32]}
training: {learning_rate: 0.05, momentum: 0.5, batch_size: 10, local_epochs: 1}
sync: {policy: fedavg}
selection: {policy: random-k, k: 3}
stop: {rounds: 6}
evaluation: {every_rounds: 1}
)";

AggregationRecord row(double time, double loss, double acc) {
    AggregationRecord r;
    r.round = 1;
    r.aggregator = "cloud";
    r.time = time;
    r.trainLoss = loss;
    r.testLoss = loss;
    r.testAccuracy = acc;
    r.participants = 3;
    return r;
}

} // namespace

class TestReproducibility : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString db_, file_;

    int cli(const QStringList& args, QByteArray* out, bool foreign = false) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("ATEN_CPU_CAPABILITY");
        env.remove("OPENBLAS_CORETYPE");
        env.remove("FOG_KERNELS");
        if (foreign) {
            env.insert("ATEN_CPU_CAPABILITY", "default");
            env.insert("OPENBLAS_CORETYPE", "Prescott");
        }
        p.setProcessEnvironment(env);
        p.start(FOG_CLI, args + QStringList{"--db", db_});
        if (!p.waitForFinished(300000)) return -1;
        *out = p.readAllStandardOutput() + p.readAllStandardError();
        return p.exitCode();
    }

    bool haveData() { return std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        db_ = dir_.path() + "/runs.db";
        file_ = dir_.path() + "/s.yaml";
        std::ofstream(file_.toStdString()) << kYaml;
    }

    // ---- the rule, on its own ---------------------------------------------------------

    void trainingValuesAgreeByTheRule() {
        QVERIFY(trainingValuesAgree(2.0177425709521244, 2.0177425661729296));
        QVERIFY(trainingValuesAgree(1.0, 1.0 + 0.9 * kTrainingRelTolerance));
        QVERIFY(!trainingValuesAgree(1.0, 1.0 + 1.1 * kTrainingRelTolerance));
        QVERIFY(trainingValuesAgree(0.80, 0.80 + 0.9 * kAccuracyAbsTolerance, true));
        QVERIFY(!trainingValuesAgree(0.80, 0.80 + 1.1 * kAccuracyAbsTolerance, true));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(trainingValuesAgree(nan, nan));
        QVERIFY(!trainingValuesAgree(nan, 1.0));
    }

    void clockValuesMustBeIdentical() {
        const AggregationRecord a = row(10.0, 1.5, 0.7);
        AggregationRecord b = a;
        b.trainLoss = 1.5 * (1 + 1e-7);
        b.testAccuracy = 0.702;
        QCOMPARE(QString::fromStdString(rowDifference(a, b, false)), QString());
        QVERIFY(rowDifference(a, b, true).find("train loss") != std::string::npos);
        b = a;
        b.time = std::nextafter(10.0, 11.0); // one ulp of virtual time is a difference
        QVERIFY(rowDifference(a, b, false).find("time") != std::string::npos);
        b = a;
        b.cost = 1e-300;
        QVERIFY(rowDifference(a, b, false).find("cost") != std::string::npos);
        b = a;
        b.participants = 2;
        QVERIFY(rowDifference(a, b, false).find("participants") != std::string::npos);
        b = a;
        b.trainLoss = 1.6; // 6% off: beyond the tolerance
        QVERIFY(rowDifference(a, b, false).find("beyond the cross-kernel tolerance") != std::string::npos);
    }

    void wholeRunsAndModels() {
        const std::vector<AggregationRecord> a{row(1, 2.0, 0.5), row(2, 1.5, 0.6)};
        std::vector<AggregationRecord> b = a;
        b[1].trainLoss = 1.5 * (1 + 2e-4);
        RowsComparison c = compareRows(a, b, false);
        QVERIFY(c.agrees());
        QVERIFY(!c.identical);
        QVERIFY(std::fabs(c.maxTrainingRelative - 2e-4 / (1 + 2e-4)) < 1e-9);
        QVERIFY(!compareRows(a, b, true).agrees());
        b.pop_back();
        QVERIFY(!compareRows(a, b, false).agrees());          // a row missing
        QVERIFY(compareRows(a, b, false, true).agrees());     // ... unless the stored run stopped early
        std::vector<float> m(100, 1.0f), n = m;
        std::string what;
        QVERIFY(modelsAgree(m, n, true, what));
        n[3] = 1.0001f;
        QVERIFY(!modelsAgree(m, n, true, what));
        QVERIFY(what.find("index 3") != std::string::npos);
        QVERIFY(modelsAgree(m, n, false, what));
        n[4] = 2.0f;
        QVERIFY(!modelsAgree(m, n, false, what));
    }

    // ---- the kernels of this process ----------------------------------------------------

    void kernelsArePinnedAndRecorded() {
        const KernelSet& k = kernelSet();
        qInfo("kernels: %s (%s); cpu %s (%s)", k.key().c_str(), k.mode.c_str(), cpuModel().c_str(),
              cpuVectorLevel().c_str());
        if (!std::getenv("ATEN_CPU_CAPABILITY") && !std::getenv("OPENBLAS_CORETYPE") && !std::getenv("FOG_KERNELS")) {
            QCOMPARE(QString::fromStdString(k.mode), QString("portable"));
            if (cpuVectorLevel() == "AVX-512" || cpuVectorLevel() == "AVX2+FMA") {
                QCOMPARE(QString::fromStdString(k.aten), QString("avx2"));
                if (k.blas != "not OpenBLAS") QCOMPARE(QString::fromStdString(k.blas), QString("Haswell"));
            }
        }
        const std::string rec = numericsRecord();
        QCOMPARE(QString::fromStdString(kernelKeyOf(rec)), QString::fromStdString(k.key()));
        QCOMPARE(kernelMatch(rec), KernelMatch::Same);
        QCOMPARE(kernelMatch(""), KernelMatch::Unknown);
        QCOMPARE(kernelMatch("kernels=aten=default blas=Prescott () torch=1.13.0; cpu=x (SSE); mode=environment"),
                 KernelMatch::Other);
        QVERIFY(kernelMatchNote(rec, "run 1").empty());
    }

    // ---- re-runs and forks of a run made with other kernels --------------------------

    void rerunAndForkFromAnotherKernelSet() {
        if (!haveData()) QSKIP("Fashion-MNIST is not installed");
        QByteArray out;
        // Run 1: computed with foreign kernels, as on another CPU.
        QCOMPARE(cli({"run", file_, "--quiet", "--threads", "1"}, &out, true), 0);
        QCOMPARE(cli({"runs", "show", "1"}, &out), 0);
        QVERIFY2(out.contains("computed with") && out.contains("aten=default") && out.contains("blas=Prescott") &&
                     out.contains("mode=environment"),
                 out.constData());

        // Its re-run here: says so, compares by the rule, and succeeds.
        QCOMPARE(cli({"runs", "rerun", "1", "--quiet", "--threads", "2"}, &out), 0);
        QVERIFY2(out.contains("run 1 was computed with other kernels"), out.constData());
        QVERIFY2(out.contains("reproduces run 1 by the cross-kernel rule"), out.constData());
        {
            RunStore store(db_.toStdString(), true);
            const auto a = store.metrics(1), b = store.metrics(2);
            QCOMPARE(a.size(), b.size());
            QVERIFY(!a.empty());
            const RowsComparison c = compareRows(a, b, false);
            QVERIFY2(c.agrees(), c.firstDifference.c_str());
            // The kernels did differ: the training values are not all bit-identical ...
            QVERIFY2(!c.identical, "foreign kernels gave bit-identical training: the test exercises nothing");
            qInfo("foreign vs pinned kernels, 6 rounds: loss %.3g relative, accuracy %.3g", c.maxTrainingRelative,
                  c.maxAccuracyAbsolute);
            // ... while everything the clock computes is.
            for (std::size_t i = 0; i < a.size(); ++i) {
                QCOMPARE(a[i].time, b[i].time);
                QCOMPARE(a[i].cost, b[i].cost);
                QCOMPARE(a[i].bytes, b[i].bytes);
                QCOMPARE(a[i].energyJ, b[i].energyJ);
                QCOMPARE(a[i].participants, b[i].participants);
            }
            QVERIFY(store.run(2)->notes.find("computed with other kernels") != std::string::npos);
        }

        // A re-run of run 2 (this machine's kernels) reproduces it bit for bit.
        QCOMPARE(cli({"runs", "rerun", "2", "--quiet"}, &out), 0);
        QVERIFY2(out.contains("reproduces run 2 bit for bit"), out.constData());
        QVERIFY2(!out.contains("other kernels"), out.constData());

        // A fork of run 1 replays it here and is checked by the rule, not refused.
        double end = 0;
        {
            RunStore store(db_.toStdString(), true);
            end = store.run(1)->summary.virtualTime;
        }
        const QString at = QString::number(end / 2, 'g', 6);
        QCOMPARE(cli({"fork", "1", "--at", at, "--set", "phone.price_per_hour=0.2", "--quiet"}, &out), 0);
        {
            RunStore store(db_.toStdString(), true);
            const auto runs = store.listRuns();
            const auto fork = std::find_if(runs.begin(), runs.end(), [](const StoredRun& r) {
                return r.name.rfind("fork of run 1", 0) == 0;
            });
            QVERIFY(fork != runs.end());
            QCOMPARE(QString::fromStdString(fork->status), QString("finished"));
            QVERIFY2(fork->notes.find("computed with other kernels") != std::string::npos, fork->notes.c_str());
        }
    }

    /// A stored run whose training values were changed beyond the tolerance (or one clock
    /// value by one ulp) is not reproduced, whatever kernels made it.
    void tamperedRunsAreNotReproduced() {
        if (!haveData()) QSKIP("Fashion-MNIST is not installed");
        QByteArray out;
        const QString db = db_;
        for (const char* change : {"train_loss = train_loss * 1.05", "time = time + 1e-9"}) {
            {
                SqliteDb sql(db.toStdString(), SqliteDb::Mode::ReadWriteCreate);
                sql.exec("UPDATE runs SET numerics = 'kernels=aten=default blas=Other () torch=0; cpu=elsewhere (SSE); "
                         "mode=environment' WHERE id = 1");
                sql.exec(std::string("UPDATE metrics SET ") + change + " WHERE run_id = 1 AND seq = 3");
            }
            QCOMPARE(cli({"runs", "rerun", "1", "--quiet"}, &out), 1);
            QVERIFY2(out.contains("does not reproduce it") && out.contains("metric row"), out.constData());
            {
                SqliteDb sql(db.toStdString(), SqliteDb::Mode::ReadWriteCreate);
                const std::string undo = std::string(change).find("1.05") != std::string::npos
                                             ? "train_loss = train_loss / 1.05"
                                             : "time = time - 1e-9";
                sql.exec("UPDATE metrics SET " + undo + " WHERE run_id = 1 AND seq = 3");
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestReproducibility)
#include "test_reproducibility.moc"
