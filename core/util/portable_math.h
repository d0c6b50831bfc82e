#pragma once
// Transcendental functions that give the same bits on every x86-64 CPU, for everything the
// virtual clock computes (random durations, availability, schedules, plans).
//
// The C library chooses its exp, log and pow per CPU at load time (glibc uses FMA variants
// where the CPU has FMA), and those variants differ in the last bit for about one input in
// 10,000 (measured: docs/reproducibility.md). Through them, a run's virtual times would differ
// in their last digits between a CPU with FMA and one without. These functions are SLEEF's
// portable scalar versions (Debian libsleef, the library LibTorch already uses; "purec":
// plain C, no FMA, no dispatch), accurate to 1.0 ULP.
//
// Use them, not std::exp / std::log / std::pow, in code whose result reaches a virtual time,
// a cost, a selection or a plan. Training arithmetic (the model) may use anything.

namespace fog::pmath {

double exp(double x);
double log(double x);
double log1p(double x);
double pow(double x, double y);
double lgamma(double x);

} // namespace fog::pmath
