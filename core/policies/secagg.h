#pragma once
// Secure aggregation's message sizes (core/policies/secagg.cpp, docs/learning.md).

namespace fog {

/// Bytes one client of a cohort sends and receives in each extra phase of SecAgg / SecAgg+
/// with `neighbours` k: keys of 32 bytes, an encrypted share pair of 92 (two 32-byte shares,
/// AES-GCM nonce and tag), a share of 32, a client id of 4.
struct SecAggBytes {
    double advertiseUp = 0, advertiseDown = 0; ///< 64; 64 k
    double shareUp = 0, shareDown = 0;         ///< 92 k each way
    double unmaskDown = 0, unmaskUp = 0;       ///< 4 n (survivor list); 32 k
};
SecAggBytes secAggBytes(int cohort, int neighbours);
/// Bytes of the masked update: P elements of the ring Z_(2^fieldBits), ceil(P fieldBits / 8)
/// (sync.field_bits; 32, the default, is FedAvg's 4 P). Throws std::invalid_argument below 1.
double secAggMaskedBytes(double params, int fieldBits);
/// k: `neighbours` (SecAgg+) capped at cohort - 1, or cohort - 1 when 0 (SecAgg).
int secAggNeighbours(int cohort, int neighbours);

} // namespace fog
