#include "core/sweep/SweepStrategy.h"

#include "core/sweep/SweepCost.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace kernelpad {

namespace {

int limitFor(const SweepStrategySpec& spec, const SweepSpace& space) {
    const int size = int(space.size());
    return spec.budget > 0 ? std::min(spec.budget, size) : size;
}

/// The indices 0..size-1 in an order fixed by `seed`.
QVector<int> shuffled(int size, quint64 seed) {
    QVector<int> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 random(seed);
    std::shuffle(order.begin(), order.end(), random);
    return order;
}

/// Walks a fixed order: exhaustive (enumeration order) and random (a seeded permutation).
class OrderStrategy : public SweepStrategy {
public:
    OrderStrategy(QVector<int> order, int limit)
        : m_order(std::move(order))
        , m_limit(limit) {}
    QVector<int> propose(int count) override {
        QVector<int> out;
        while (out.size() < count && m_next < m_limit)
            out.append(m_order[m_next++]);
        return out;
    }
    void report(int, double) override {}
    [[nodiscard]] int limit() const override { return m_limit; }

private:
    QVector<int> m_order;
    int m_limit;
    int m_next = 0;
};

class LocalStrategy : public SweepStrategy {
public:
    LocalStrategy(const SweepSpace& space, quint64 seed, int limit)
        : m_space(space)
        , m_starts(shuffled(int(space.size()), seed))
        , m_limit(limit) {}

    QVector<int> propose(int count) override {
        QVector<int> out;
        while (out.size() < count && m_proposed < m_limit) {
            if (!m_queue.isEmpty()) {
                const int index = m_queue.takeFirst();
                if (m_seen.contains(index))
                    continue;
                m_seen.insert(index);
                ++m_outstanding;
                ++m_proposed;
                out.append(index);
                continue;
            }
            if (m_outstanding > 0 || !advance())
                break; // the next step needs the outstanding scores, or the space is used up
        }
        return out;
    }

    void report(int index, double score) override {
        m_scores.insert(index, score);
        if (m_outstanding > 0)
            --m_outstanding;
    }
    [[nodiscard]] int limit() const override { return m_limit; }

private:
    /// Decides the next step once every proposed score is in; false when nothing is left.
    bool advance() {
        while (true) {
            if (m_current < 0)
                return restart();
            const double here = m_scores.value(m_current, std::nan(""));
            if (std::isnan(here)) {
                m_current = -1; // a failed start: look elsewhere
                continue;
            }
            const QVector<int> around = neighbours(m_current);
            if (!m_climbing) {
                m_climbing = true;
                for (int n : around)
                    if (!m_seen.contains(n))
                        m_queue.append(n);
                if (!m_queue.isEmpty())
                    return true;
            }
            // Every neighbour is scored: move to the best one if it beats this one.
            int best = -1;
            double bestScore = here;
            for (int n : around) {
                const double s = m_scores.value(n, std::nan(""));
                if (!std::isnan(s) && s < bestScore) {
                    best = n;
                    bestScore = s;
                }
            }
            m_climbing = false;
            m_current = best; // -1 at a local optimum: restart
        }
    }

    bool restart() {
        while (m_nextStart < m_starts.size()) {
            const int start = m_starts[m_nextStart++];
            if (m_seen.contains(start))
                continue;
            m_current = start;
            m_climbing = false;
            m_queue.append(start);
            return true;
        }
        return false;
    }

    QVector<int> neighbours(int index) const {
        QVector<int> out;
        const SweepPoint& point = m_space.points()[index];
        for (qsizetype d = 0; d < point.size(); ++d) {
            for (int step : {-1, 1}) {
                SweepPoint next = point;
                next[d] += step;
                if (next[d] < 0 || next[d] >= m_space.values()[d].size())
                    continue;
                if (const int n = m_space.indexOf(next); n >= 0)
                    out.append(n);
            }
        }
        return out;
    }

    const SweepSpace& m_space;
    QVector<int> m_starts;
    int m_nextStart = 0;
    int m_limit;
    int m_proposed = 0;
    int m_outstanding = 0;
    int m_current = -1;
    bool m_climbing = false; ///< the current configuration's neighbours were queued
    QVector<int> m_queue;
    QSet<int> m_seen;
    QHash<int, double> m_scores;
};

} // namespace

std::unique_ptr<SweepStrategy> SweepStrategy::create(const SweepStrategySpec& spec,
                                                     const SweepSpace& space,
                                                     const QVector<double>& costs) {
    const int limit = limitFor(spec, space);
    switch (spec.kind) {
    case SweepStrategySpec::Kind::Exhaustive: {
        QVector<int> order(int(space.size()));
        std::iota(order.begin(), order.end(), 0);
        orderLongestFirst(&order, limit, costs); // the same configurations, the long ones first
        return std::make_unique<OrderStrategy>(std::move(order), limit);
    }
    case SweepStrategySpec::Kind::Random: {
        QVector<int> order = shuffled(int(space.size()), spec.seed);
        orderLongestFirst(&order, limit, costs);
        return std::make_unique<OrderStrategy>(std::move(order), limit);
    }
    case SweepStrategySpec::Kind::Local:
        return std::make_unique<LocalStrategy>(space, spec.seed, limit);
    }
    return nullptr;
}

} // namespace kernelpad
