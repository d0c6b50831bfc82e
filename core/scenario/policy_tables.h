#pragma once
// Tables of docs/emulator.md generated from the policies' descriptors, as the policy tables
// and the key reference of docs/scenario.md are (core/scenario/schema.h, policiesMarkdown).

#include <string>

namespace fog {

/// The tables between the "policy-trees:begin/end" markers of docs/emulator.md: where each
/// sync policy's round ends and its closed-form round time, then the trees each tree shape
/// uses, from the descriptors (`hasBarrier`, `barrier`, `info.shape`, `serverPerRoot`), as
/// `fogstudio-cli policies --markdown trees` prints them.
std::string policyTreesMarkdown();

} // namespace fog
