# Collects the policy descriptors of core/policies/*.cpp into one list (policy_list.inc):
# every FOG_SYNC_POLICY(fn) / FOG_SELECTION_POLICY(fn) line becomes FOG_LIST_SYNC(fn) /
# FOG_LIST_SELECTION(fn) (core/util/descriptor_list.cmake, which says the rules). Run at
# build time by core/CMakeLists.txt:
#   cmake -DDIR=<core/policies> -DOUT=<file> -P policy_list.cmake
set(KINDS "SYNC|SELECTION")
set(SUFFIX "_POLICY")
include("${CMAKE_CURRENT_LIST_DIR}/../util/descriptor_list.cmake")
