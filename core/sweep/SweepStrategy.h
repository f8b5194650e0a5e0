#pragma once
// How a sweep walks its space: pure algorithms over an asynchronous "evaluate these" step.
// The driver asks propose() for up to as many configurations as its evaluator can take,
// reports each score when it arrives, and is done when propose() returns nothing and nothing
// is outstanding. Scores are "lower is better"; NaN is a configuration that failed.
//
// - exhaustive: every configuration of the space in enumeration order (the first `budget`
//   when a budget is given).
// - random: a seeded uniform sample without repeats, at most `budget` configurations.
//   Given each configuration's estimated cost (SweepCost.h), both evaluate the same
//   configurations, the longest first, so that several devices finish close together.
// - local: greedy steepest-descent hill climbing with random restarts. From a random start,
//   evaluate every neighbour not yet seen (one tunable one value up or down in its list;
//   restricted configurations are skipped); move to the best neighbour while it beats the
//   current configuration; at a local optimum, or when the start failed, restart from a
//   random configuration not yet seen. Every evaluation counts against the budget; no
//   configuration is evaluated twice. Model-free: only the order of scores matters.

#include "core/project/SweepSpec.h"
#include "core/sweep/SweepSpace.h"

#include <QVector>

#include <memory>

namespace kernelpad {

/// One search over a SweepSpace; configurations are indices into its points().
class SweepStrategy {
public:
    virtual ~SweepStrategy() = default;
    /// Up to `count` configurations to evaluate next, none seen before. Empty when the
    /// search waits for outstanding scores or has ended.
    virtual QVector<int> propose(int count) = 0;
    /// The score of a proposed configuration (lower is better, NaN: failed).
    virtual void report(int index, double score) = 0;
    /// How many configurations it will evaluate at most (the budget or the space).
    [[nodiscard]] virtual int limit() const = 0;

    /// The strategy `spec` names over `space`, which must outlive it. `costs` (per index of
    /// the space, NaN unknown; empty: none) orders exhaustive and random longest first; a
    /// local search goes where its scores lead.
    static std::unique_ptr<SweepStrategy> create(const SweepStrategySpec& spec,
                                                 const SweepSpace& space,
                                                 const QVector<double>& costs = {});
};

} // namespace kernelpad
