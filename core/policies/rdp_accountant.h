#pragma once
// Renyi-DP accountant of the sampled Gaussian mechanism (DP-FedAvg's privacy per round).
// Mironov, Talwar and Zhang, Renyi Differential Privacy of the Sampled Gaussian Mechanism,
// 2019, Section 3.3 (integer orders); (epsilon, delta) by Mironov, Renyi Differential
// Privacy, CSF 2017, Proposition 3.

namespace fog {

/// RDP at integer order `alpha` >= 2 of one step of the Gaussian mechanism with noise
/// multiplier `sigma` on a Poisson sample of rate `q`:
/// (1 / (alpha - 1)) log sum_{k=0..alpha} C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 sigma^2)).
double sampledGaussianRdp(double q, double sigma, int alpha);

/// epsilon at `delta` after `steps` such steps: min over alpha = 2..256 of
/// steps RDP(alpha) + log(1 / delta) / (alpha - 1). `order`: the minimising alpha when given.
/// 0 steps: 0. Infinity when sigma is 0.
double rdpEpsilon(double q, double sigma, long steps, double delta, int* order = nullptr);

} // namespace fog
