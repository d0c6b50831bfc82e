#pragma once
// The tables of a cluster file (`kind: cluster`), built like the training scenario's
// (core/scenario/schema_builder.h): every key with its type, unit, default, bounds, when it
// applies and help, and an accessor. The reader and writer (cluster_io.cpp) go through them,
// the validator takes their bounds, and the key reference of docs/cluster.md is printed from
// them, so a cluster key is added in one place (docs/extending.md, "Adding a cluster key").
// Lists (clusters, servers, task types) and the scheduler section are read by code of their
// own (`custom`); the scheduler's own keys belong to its descriptor (cluster_scheduler.h).

#include "core/cluster/cluster_scenario.h"
#include "core/scenario/schema.h"

#include <string>
#include <vector>

namespace fog::cluster {

using ClusterField = SchemaField<ClusterScenario>;
using ClusterEntryField = SchemaField<ClusterSpec>;
using ServerField = SchemaField<ServerSpec>;
using TaskTypeField = SchemaField<TaskType>;

/// The top level of a cluster file, in file order.
const std::vector<ClusterField>& clusterSchema();
/// An item of `clusters`.
const std::vector<ClusterEntryField>& clusterEntrySchema();
/// An item of a cluster's `servers`.
const std::vector<ServerField>& serverSchema();
/// An item of `task_types`.
const std::vector<TaskTypeField>& taskTypeSchema();

/// The key reference of docs/cluster.md (between its "cluster-schema:begin/end" markers), as
/// `fogstudio-cli cluster schema` prints it.
std::string clusterSchemaMarkdown();
/// The scheduler table of docs/cluster.md (between its "cluster-schedulers:begin/end"
/// markers) from the descriptors, as `fogstudio-cli cluster schedulers --markdown` prints it.
std::string clusterSchedulersMarkdown();

} // namespace fog::cluster
