#pragma once
// Dispatch: one job of work sent to a trainer (model down, local steps, update up), whose
// whole virtual timeline is planned when it starts; the real training runs on the work pool
// and is waited for only when the update arrives. The engine's dispatch, arrival,
// cancellation and loss of jobs are in dispatch.cpp.
//
// Threads: engine thread only (the work a job submits runs on pool threads and touches
// nothing here).

#include "core/policies/policy_context.h" // Job, DispatchOptions, DispatchRequest
