#pragma once
// The editor of a cluster scenario (issue 17): edge clusters and their servers (CPUs, GPUs,
// memory, bandwidth), task types (probability, size distribution, min / max / request,
// resource-speed curve, memory and bandwidth held), the arrival process, the queue limit,
// the seed and the scheduler. Tables for the lists, plain fields for the rest; every edit
// re-checks the scenario (validateClusterScenario) and lists the problems under the tables.

#include "core/cluster/cluster_scenario.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace fog {

class ClusterEditor : public QWidget {
    Q_OBJECT
  public:
    explicit ClusterEditor(QWidget* parent = nullptr);

    /// Fills the editor (no changed() signal).
    void setScenario(const cluster::ClusterScenario& s);
    /// The scenario as edited: the one given to setScenario with the edited fields.
    cluster::ClusterScenario scenario() const;
    /// Problems of the edited scenario ("key.path message" each); empty when it can run.
    QStringList problems() const;

    QTableWidget* serverTable() const { return servers_; }
    QTableWidget* taskTable() const { return tasks_; }
    QComboBox* schedulerBox() const { return scheduler_; }

    /// Columns of the tables (tests and the window address cells by them).
    enum ServerColumn { SCluster, SId, SCpus, SGpus, SMemory, SBandwidth, SColumns };
    enum TaskColumn {
        TName,
        TProbability,
        TWorkKind,
        TWorkMean,
        TWorkMin,
        TWorkMax,
        TMinCpus,
        TMinGpus,
        TMaxCpus,
        TMaxGpus,
        TReqCpus,
        TReqGpus,
        TBase,
        TCpuExp,
        TGpuExp,
        TMemory,
        TBandwidth,
        TColumns
    };

    void addCluster();
    /// A server in the current row's cluster (or the last cluster); selects it.
    void addServer();
    /// A server in `cluster` (a new cluster of that name when none has it); selects it.
    void addServerIn(const QString& cluster);
    /// A copy of the server of `row` (a new unique id) just after it; selects it.
    void duplicateServer(int row);
    /// A new cluster with copies of `cluster`'s servers (new unique ids); selects them.
    void duplicateCluster(const QString& cluster);
    void removeServerRows(QList<int> rows);
    void removeCluster(const QString& cluster);
    /// Moves the server of `row` to `cluster` (its Cluster cell, checked like a typed edit).
    void setServerCluster(int row, const QString& cluster);
    void addTaskType();
    void removeSelectedServers();
    void removeSelectedTaskTypes();

  Q_SIGNALS:
    void changed();
    /// setScenario filled the editor anew (no changed()).
    void filled();

  private:
    void edited();
    void fillServerRow(int row, const QString& cluster, const cluster::ServerSpec& s);
    void fillTaskRow(int row, const cluster::TaskType& t);
    void updateProblems();
    void updateApplicability();
    QString cell(int row, int column) const;
    QString uniqueServerId(const QString& stem) const;
    void selectServerRows(int first, int last);

    cluster::ClusterScenario base_;
    bool filling_ = false;
    QLineEdit* name_;
    QSpinBox* seed_;
    QTableWidget* servers_;
    QTableWidget* tasks_;
    QComboBox* arrivalKind_;
    QDoubleSpinBox* rate_;
    QSpinBox* taskCount_;
    QLineEdit* traceFile_;
    QSpinBox* queueLimit_;
    QComboBox* scheduler_;
    QLineEdit* thresholds_;
    QLineEdit* policyFile_;
    QLabel* problems_;
};

} // namespace fog
