# Collects the cluster schedulers of core/cluster/*.cpp into one list (scheduler_list.inc):
# every FOG_CLUSTER_SCHEDULER(fn) line becomes FOG_LIST_CLUSTER(fn)
# (core/util/descriptor_list.cmake, which says the rules). Run at build time by
# core/CMakeLists.txt:
#   cmake -DDIR=<core/cluster> -DOUT=<file> -P scheduler_list.cmake
set(KINDS "CLUSTER")
set(SUFFIX "_SCHEDULER")
include("${CMAKE_CURRENT_LIST_DIR}/../util/descriptor_list.cmake")
