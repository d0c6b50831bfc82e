// bench mpi: the wall time of one 16-trial timing-only sweep under `mpirun -n 1` and
// `mpirun -n 2`, and the speed-up. A benchmark, not a test: it prints, it never fails on a
// number.

#include "app/cli/commands.h"
#include "app/cli/sweep_mpi.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <iostream>
#include <vector>
#include <unistd.h>

namespace fog::cli {

namespace {

// 16 trials (8 selection sizes x 2 repeats) of a star of 120 spot devices, timing only:
// each trial is pure engine work, a few hundred milliseconds.
const char* kScenario = R"(schema_version: 1
name: bench-mpi (timing only)
seed: 5
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 0.4}
  groups:
    - id: dev
      count: 120
      tier: device
      role: trainer
      parent: server
      compute: {throughput: {min: 20, max: 80}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 600, mean_down_s: 200}
data: {dataset: none, samples_per_trainer: 200}
model: {kind: none, wire_bytes: 400000}
training: {batch_size: 10, local_steps: 5}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 8}
stop: {rounds: 2000}
evaluation: {every_rounds: 10}
)";

} // namespace

int cmdBenchMpi(const CliOptions& o) {
    if (!mpiAvailable()) {
        std::cerr << "fogstudio-cli: bench mpi: this build has no MPI support (install libopenmpi-dev and rebuild)\n";
        return 2;
    }
    const QString mpirun = QStandardPaths::findExecutable("mpirun");
    if (mpirun.isEmpty()) {
        std::cerr << "fogstudio-cli: bench mpi: mpirun is not on PATH (Debian: openmpi-bin)\n";
        return 2;
    }
    QTemporaryDir dir;
    QFile f(dir.filePath("bench.yaml"));
    if (!dir.isValid() || !f.open(QIODevice::WriteOnly)) {
        std::cerr << "fogstudio-cli: bench mpi: cannot write a temporary scenario\n";
        return 1;
    }
    f.write(kScenario);
    f.close();
    const QString self = QCoreApplication::applicationFilePath();
    std::cout << "bench mpi: 16-trial timing-only sweep (selection.k = 4..32 x 2 repeats, 2000 rounds, 120 devices)\n"
              << "  each rank runs one trial at a time with 1 thread; rank 0 also stores every run\n";
    // 1 and 2 ranks alternated over three passes, medians compared: one run each swings with
    // the load of a shared machine.
    constexpr int kPasses = 3;
    std::vector<double> seconds[3];
    for (int pass = 0; pass < kPasses; ++pass)
        for (int n : {1, 2}) {
            QStringList args{"-n", QString::number(n), "--oversubscribe"};
            if (geteuid() == 0) args << "--allow-run-as-root";
            args << self << "sweep" << f.fileName() << "--vary" << "selection.k=4,8,12,16,20,24,28,32" << "--repeat"
                 << "2" << "--threads" << "1" << "--quiet" << "--db"
                 << dir.filePath(QString("runs-%1-%2.db").arg(n).arg(pass));
            QProcess p;
            p.setProcessChannelMode(QProcess::MergedChannels);
            QElapsedTimer timer;
            timer.start();
            p.start(mpirun, args);
            if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
                std::cerr << "fogstudio-cli: bench mpi: mpirun -n " << n << " failed:\n"
                          << p.readAll().toStdString() << "\n";
                return 1;
            }
            seconds[n].push_back(timer.elapsed() / 1000.0);
            std::cout << "  pass " << pass + 1 << ", mpirun -n " << n << ": " << seconds[n].back()
                      << " s wall (launch included)\n";
        }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double one = median(seconds[1]), two = median(seconds[2]);
    std::cout << "  medians of " << kPasses << " alternated passes: " << one << " s (1 rank), " << two
              << " s (2 ranks)\n  speed-up at 2 ranks (ratio of medians): " << one / two << "x on "
              << QThread::idealThreadCount() << " cores\n";
    (void)o;
    return 0;
}

} // namespace fog::cli
