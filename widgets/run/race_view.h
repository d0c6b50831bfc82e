#pragma once
// Race mode: two or three variants of a scenario run side by side on one shared virtual
// clock, each on its own canvas (nodes in their states, messages moving along the links),
// with the same plots overlaid live (test accuracy, training loss, cost over virtual time),
// so that a class watches e.g. fully-sync and n-sync diverge. Each variant is a run of its
// own (a RunController each, stored in the run database like any other run). The clock is
// shared by holding back a run that gets ahead: a racer more than a little ahead of the
// slowest one still running pauses until the others catch up, so at every moment the
// canvases and the plots show the same virtual instant (to within `slack()`): each racer may
// run to the shared clock plus the slack and pauses there by itself (a run-until on time,
// checked by the engine at every event), until the slowest has caught up.

#include "core/spec/scenario.h"
#include "core/system/metrics.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <functional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPItemStraightLine;
class QLabel;
class QPushButton;
class QTimer;

namespace fog {

class RunController;
class ScenarioDocument;
class TopologyCanvas;

class RaceView : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxRacers = 3;
    struct Entry {
        QString label;
        Scenario scenario;
    };

    explicit RaceView(QWidget* parent = nullptr);
    ~RaceView() override;

    /// The variants to race (2 or 3, each valid); false and `why` otherwise. Stops a race
    /// going first.
    bool setRacers(const std::vector<Entry>& entries, QString* why = nullptr);
    void setDatabase(const QString& dbPath) { dbPath_ = dbPath; }
    void setThreads(int threads) { threads_ = threads; }
    /// Names each racer's stored run from its label when a race starts (unset: the scenario's name).
    void setRunNamer(std::function<QString(const QString& label)> namer) { namer_ = std::move(namer); }
    /// Virtual seconds per wall second for every racer (0: as fast as the slowest allows).
    void setPlaybackSpeed(double speed);

    int racerCount() const { return static_cast<int>(racers_.size()); }
    QString label(int i) const;
    TopologyCanvas* canvas(int i) const;
    RunController* controller(int i) const;
    /// The virtual instant racer i has reached.
    double clockOf(int i) const;
    /// The shared clock: the instant the slowest racer still running has reached (the
    /// largest when all have ended).
    double sharedClock() const;
    /// How far a racer may run ahead of the shared clock before it is held.
    double slack() const;
    bool isRunning() const;
    /// How many times a racer was held so far in this race.
    int holds() const { return holds_; }
    QCustomPlot* plot(int k) const { return plots_[k]; } ///< 0 accuracy, 1 loss, 2 cost
    /// Stored run ids of the racers (0 before they start).
    QList<qint64> runIds() const;

  public Q_SLOTS:
    void start();
    void pause();
    void resume();
    void stop();

  Q_SIGNALS:
    /// Every racer ended; their stored runs.
    void finished(const QList<qint64>& runIds);
    void message(const QString& text);

  private:
    struct Racer;
    std::function<QString(const QString&)> namer_;
    void tick();
    void updateFigures(int i);
    void updateButtons();

    std::vector<std::unique_ptr<Racer>> racers_;
    QWidget* columns_ = nullptr;
    QCustomPlot* plots_[3] = {nullptr, nullptr, nullptr};
    QCPItemStraightLine* nowLines_[3] = {nullptr, nullptr, nullptr};
    QLabel* clockLabel_ = nullptr;
    QLabel* titleLabel_ = nullptr;
    QPushButton* startButton_ = nullptr;
    QPushButton* pauseButton_ = nullptr;
    QPushButton* stopButton_ = nullptr;
    QComboBox* speedCombo_ = nullptr;
    QTimer* timer_ = nullptr;
    QString dbPath_;
    int threads_ = 1;
    double speed_ = 5.0;
    bool paused_ = false; ///< by the user
    bool started_ = false;
    bool finishedEmitted_ = false;
    int holds_ = 0;
};

} // namespace fog
